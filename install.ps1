# Installs svc on Windows x86_64: downloads svc-x86_64-pc-windows-msvc.exe and SHA256SUMS,
# verifies the checksum, moves the binary into place, and adds its directory to the user PATH.
# It mirrors install.sh; tests/install/install_ps1_test.ts checks that the two agree.
#
#   $env:SVC_DOWNLOAD_BASE = '<release-base>'; irm <release-base>/install.ps1 | iex
#
# Environment (see docs/install.md):
#   SVC_DOWNLOAD_BASE  where the release files are served (required until svc has a public host)
#   SVC_VERSION        a release such as 0.2.0 or v0.2.0 (default: the latest release)
#   SVC_INSTALL_DIR    where svc.exe goes (default: %USERPROFILE%\.svc\bin)
#
# Layout under SVC_DOWNLOAD_BASE (the same as GitHub Releases):
#   latest:  $SVC_DOWNLOAD_BASE/latest/download/<file>
#   pinned:  $SVC_DOWNLOAD_BASE/download/v<version>/<file>
#
# It never asks for elevation and never runs a download as a script. Errors are thrown, not
# `exit`ed, so that `irm | iex` reports them without closing the caller's window.

function Install-Svc {
    $ErrorActionPreference = 'Stop'
    # Invoke-WebRequest in Windows PowerShell 5.1 is many times slower with a progress bar.
    $ProgressPreference = 'SilentlyContinue'

    # The project's release host, once there is one. Empty: SVC_DOWNLOAD_BASE must be set.
    $defaultDownloadBase = ''

    if ($PSVersionTable.PSEdition -eq 'Core' -and -not $IsWindows) {
        throw 'Unsupported operating system: install.ps1 is for Windows, so on Linux and macOS use install.sh'
    }
    # 32-bit PowerShell on 64-bit Windows reports x86 and keeps the real value in PROCESSOR_ARCHITEW6432.
    $arch = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } else { $env:PROCESSOR_ARCHITECTURE }
    if ($arch -ne 'AMD64') {
        throw "Unsupported architecture `"$arch`" on Windows: svc ships a Windows build for x86_64 (AMD64) only"
    }
    $target = 'x86_64-pc-windows-msvc'
    $asset = "svc-$target.exe"

    $base = if ($env:SVC_DOWNLOAD_BASE) { $env:SVC_DOWNLOAD_BASE } else { $defaultDownloadBase }
    if (-not $base) {
        throw 'SVC_DOWNLOAD_BASE is not set: svc has no public release host yet, so set it to the URL that serves the release files (see docs/install.md)'
    }
    $base = $base.TrimEnd('/')
    # Plain http only on loopback: the checksums come from the same server.
    if ($base -notmatch '^https://' -and $base -notmatch '^http://(127\.0\.0\.1|localhost|\[::1\])([:/]|$)') {
        throw "SVC_DOWNLOAD_BASE must be an https:// URL (plain http only on loopback), got `"$base`""
    }

    if ($env:SVC_VERSION) {
        $version = $env:SVC_VERSION -creplace '^v', ''
        if ($version -cnotmatch '^[0-9A-Za-z.+-]+$') {
            throw "SVC_VERSION `"$env:SVC_VERSION`" is not a version such as 0.2.0"
        }
        $releaseUrl = "$base/download/v$version"
        $releaseName = "v$version"
    } else {
        $releaseUrl = "$base/latest/download"
        $releaseName = 'the latest release'
    }

    $installDir = if ($env:SVC_INSTALL_DIR) { $env:SVC_INSTALL_DIR } else { Join-Path $env:USERPROFILE '.svc\bin' }
    $installDir = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($installDir)

    # Windows PowerShell 5.1 may not offer TLS 1.2 unless asked.
    [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

    $staging = Join-Path ([IO.Path]::GetTempPath()) ('svc-install-' + [Guid]::NewGuid().ToString('N'))
    New-Item -ItemType Directory -Path $staging | Out-Null
    $installTmp = $null
    try {
        Write-Host "Downloading $asset ($releaseName) from $releaseUrl"
        foreach ($file in @($asset, 'SHA256SUMS')) {
            $url = "$releaseUrl/$file"
            try {
                # .NET refuses to follow an https URL's redirect to plain http.
                Invoke-WebRequest -Uri $url -OutFile (Join-Path $staging $file) -UseBasicParsing
            } catch {
                throw "Cannot download `"$url`": check SVC_DOWNLOAD_BASE and SVC_VERSION ($($_.Exception.Message))"
            }
        }

        # SHA256SUMS lines are "<hex>  <file>" or "<hex> *<file>", as sha256sum writes them.
        $expected = @(Get-Content -LiteralPath (Join-Path $staging 'SHA256SUMS') | ForEach-Object {
                $fields = -split $_
                if ($fields.Count -ge 2 -and ($fields[1] -ceq $asset -or $fields[1] -ceq "*$asset")) {
                    $fields[0].ToLowerInvariant()
                }
            })
        if ($expected.Count -eq 0) {
            throw "SHA256SUMS from $releaseUrl has no entry for `"$asset`"; nothing was installed"
        }
        if ($expected.Count -ne 1 -or $expected[0] -cnotmatch '^[0-9a-f]{64}$') {
            throw "SHA256SUMS from $releaseUrl has a malformed entry for `"$asset`"; nothing was installed"
        }
        $actual = (Get-FileHash -Algorithm SHA256 -LiteralPath (Join-Path $staging $asset)).Hash.ToLowerInvariant()
        if ($actual -ne $expected[0]) {
            throw "Checksum mismatch for `"$asset`": expected $($expected[0]), got $actual; nothing was installed"
        }

        New-Item -ItemType Directory -Force -Path $installDir | Out-Null
        $destination = Join-Path $installDir 'svc.exe'
        $upgrading = Test-Path -LiteralPath $destination
        # Same directory as the destination, so the final move is a rename.
        $installTmp = Join-Path $installDir ('.svc-' + [Guid]::NewGuid().ToString('N') + '.exe')
        Copy-Item -LiteralPath (Join-Path $staging $asset) -Destination $installTmp

        # Refuses a build that cannot run here before replacing anything.
        $runs = $false
        try {
            $installedVersion = (& $installTmp --version | Out-String).Trim()
            $runs = $LASTEXITCODE -eq 0
        } catch {
            $installedVersion = $_.Exception.Message
        }
        if (-not $runs) {
            throw "The downloaded `"$asset`" does not run on this machine: $installedVersion"
        }

        try {
            Move-Item -LiteralPath $installTmp -Destination $destination -Force
        } catch {
            throw "Cannot replace `"$destination`": it is in use, so stop svc (svc stop) and run the installer again"
        }
        $installTmp = $null
        Write-Host "Installed $installedVersion to $destination"
        if ($upgrading) {
            Write-Host 'A running daemon keeps the previous version until restarted: svc stop, then svc serve'
        }

        # The raw user Path keeps %VARIABLE% entries unexpanded; it is written back as REG_EXPAND_SZ.
        $userPath = (Get-Item -LiteralPath 'HKCU:\Environment').GetValue('Path', '', 'DoNotExpandEnvironmentNames')
        $entries = @($userPath -split ';' | Where-Object { $_ })
        $onPath = @($entries | Where-Object {
                [Environment]::ExpandEnvironmentVariables($_).TrimEnd('\') -eq $installDir.TrimEnd('\')
            })
        if ($onPath.Count -eq 0) {
            Set-ItemProperty -LiteralPath 'HKCU:\Environment' -Name 'Path' -Value (($entries + $installDir) -join ';') -Type ExpandString
            # Setting a user variable broadcasts WM_SETTINGCHANGE, so new terminals see the new Path.
            [Environment]::SetEnvironmentVariable('SVC_INSTALL_REFRESH', '1', 'User')
            [Environment]::SetEnvironmentVariable('SVC_INSTALL_REFRESH', $null, 'User')
            $env:Path = "$env:Path;$installDir"
            Write-Host "Added $installDir to your user PATH; open a new terminal to use svc"
        }
    } finally {
        if ($installTmp) { Remove-Item -LiteralPath $installTmp -Force -ErrorAction SilentlyContinue }
        Remove-Item -LiteralPath $staging -Recurse -Force -ErrorAction SilentlyContinue
    }
}

Install-Svc
