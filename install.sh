#!/bin/sh
# Installs the svc binary for this machine: downloads svc-<target> and SHA256SUMS,
# verifies the checksum, and moves the binary into place atomically.
#
#   curl -fsSL <release-base>/install.sh | SVC_DOWNLOAD_BASE=<release-base> sh
#
# Environment (see docs/install.md):
#   SVC_DOWNLOAD_BASE  where the release files are served (required until svc has a public host)
#   SVC_VERSION        a release such as 0.2.0 or v0.2.0 (default: the latest release)
#   SVC_INSTALL_DIR    where svc goes (default: $HOME/.svc/bin)
#
# Layout under SVC_DOWNLOAD_BASE (the same as GitHub Releases):
#   latest:  $SVC_DOWNLOAD_BASE/latest/download/<file>
#   pinned:  $SVC_DOWNLOAD_BASE/download/v<version>/<file>
#
# It never uses sudo, never edits shell profiles, and never runs a download as a script.
# Everything is inside main() so that a truncated download of this file runs nothing.

set -eu

# The project's release host, once there is one. Empty: SVC_DOWNLOAD_BASE must be set.
DEFAULT_DOWNLOAD_BASE=""

staging_dir=""
install_tmp=""

fail() {
  printf 'svc install: %s\n' "$*" >&2
  exit 1
}

say() {
  printf '%s\n' "$*"
}

cleanup() {
  if [ -n "$install_tmp" ]; then rm -f "$install_tmp"; fi
  if [ -n "$staging_dir" ]; then rm -rf "$staging_dir"; fi
}

# Prints the Rust-style target triple of this machine, or fails for an unsupported one.
detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os_part="unknown-linux-gnu" ;;
    Darwin)
      os_part="apple-darwin"
      # An x86_64 shell under Rosetta on Apple silicon: install the native build.
      if [ "$arch" = "x86_64" ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = "1" ]; then
        arch="arm64"
      fi
      ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      fail "Unsupported operating system \"$os\": on Windows use install.ps1 (see docs/install.md)"
      ;;
    *) fail "Unsupported operating system \"$os\": svc ships builds for Linux and macOS only" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch_part="x86_64" ;;
    aarch64 | arm64) arch_part="aarch64" ;;
    *) fail "Unsupported architecture \"$arch\" on $os: svc ships builds for x86_64 and aarch64/arm64 only" ;;
  esac
  printf '%s-%s\n' "$arch_part" "$os_part"
}

# Refuses plain http except on loopback: the checksums come from the same server.
check_base() {
  case "$1" in
    https://*) ;;
    http://127.0.0.1[:/]* | http://localhost[:/]* | "http://[::1]"[:/]*) ;;
    http://127.0.0.1 | http://localhost | "http://[::1]") ;;
    *) fail "SVC_DOWNLOAD_BASE must be an https:// URL (plain http only on loopback), got \"$1\"" ;;
  esac
}

# download URL FILE: fetches URL into FILE with curl or wget; fails with the URL named.
download() {
  if command -v curl >/dev/null 2>&1; then
    # An https base may not be redirected to plain http.
    case "$1" in
      https://*) curl_proto="=https" ;;
      *) curl_proto="=http,https" ;;
    esac
    curl -fsSL --retry 2 --proto "$curl_proto" -o "$2" "$1" ||
      fail "Cannot download \"$1\": check SVC_DOWNLOAD_BASE and SVC_VERSION"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" ||
      fail "Cannot download \"$1\": check SVC_DOWNLOAD_BASE and SVC_VERSION"
  else
    fail "Cannot download: neither curl nor wget is installed"
  fi
}

# Prints the lowercase SHA-256 hex digest of a file.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    fail "Cannot verify the download: neither sha256sum nor shasum is installed"
  fi
}

# expected_sha256 SUMS ASSET: the digest listed for ASSET ("<hex>  <file>" or "<hex> *<file>").
expected_sha256() {
  awk -v asset="$2" '$2 == asset || $2 == "*" asset { print tolower($1) }' "$1"
}

main() {
  base=${SVC_DOWNLOAD_BASE:-$DEFAULT_DOWNLOAD_BASE}
  if [ -z "$base" ]; then
    fail "SVC_DOWNLOAD_BASE is not set: svc has no public release host yet, so set it to the URL that serves the release files (see docs/install.md)"
  fi
  base=${base%/}
  check_base "$base"

  if [ -z "${SVC_VERSION:-}" ]; then
    release_url="$base/latest/download"
    release_name="the latest release"
  else
    version=${SVC_VERSION#v}
    case "$version" in
      "" | *[!0-9A-Za-z.+-]*) fail "SVC_VERSION \"$SVC_VERSION\" is not a version such as 0.2.0" ;;
    esac
    release_url="$base/download/v$version"
    release_name="v$version"
  fi

  default_dir=false
  if [ -n "${SVC_INSTALL_DIR:-}" ]; then
    install_dir=${SVC_INSTALL_DIR%/}
  elif [ -n "${HOME:-}" ]; then
    install_dir="$HOME/.svc/bin"
    default_dir=true
  else
    fail "HOME is not set: set SVC_INSTALL_DIR to the directory to install svc into"
  fi

  target=$(detect_target)
  asset="svc-$target"

  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  staging_dir=$(mktemp -d "${TMPDIR:-/tmp}/svc-install.XXXXXX")

  say "Downloading $asset ($release_name) from $release_url"
  download "$release_url/$asset" "$staging_dir/$asset"
  download "$release_url/SHA256SUMS" "$staging_dir/SHA256SUMS"

  expected=$(expected_sha256 "$staging_dir/SHA256SUMS" "$asset")
  case "$expected" in
    "") fail "SHA256SUMS from $release_url has no entry for \"$asset\"; nothing was installed" ;;
  esac
  if [ "${#expected}" -ne 64 ] || [ -n "$(printf '%s' "$expected" | tr -d '0-9a-f')" ]; then
    fail "SHA256SUMS from $release_url has a malformed entry for \"$asset\"; nothing was installed"
  fi
  actual=$(sha256_of "$staging_dir/$asset")
  if [ "$actual" != "$expected" ]; then
    fail "Checksum mismatch for \"$asset\": expected $expected, got $actual; nothing was installed"
  fi

  # ~/.svc is also the daemon's default home, which it refuses if group or others can write it.
  mkdir_umask=$(umask)
  if [ "$default_dir" = true ]; then mkdir_umask=077; fi
  (umask "$mkdir_umask" && mkdir -p "$install_dir") ||
    fail "Cannot create \"$install_dir\": set SVC_INSTALL_DIR to a directory you own"
  install_dir=$(CDPATH="" cd -- "$install_dir" && pwd)
  upgrading=false
  if [ -e "$install_dir/svc" ]; then upgrading=true; fi
  # Same directory as the destination, so the final mv is an atomic rename.
  install_tmp=$(mktemp "$install_dir/.svc.XXXXXX") ||
    fail "Cannot write to \"$install_dir\": set SVC_INSTALL_DIR to a directory you own"
  cp "$staging_dir/$asset" "$install_tmp"
  chmod 755 "$install_tmp"
  # Refuses a build that cannot run here (Linux builds need glibc) before replacing anything.
  if ! installed_version=$("$install_tmp" --version </dev/null 2>&1); then
    fail "The downloaded \"$asset\" does not run on this machine (Linux builds need glibc): $installed_version"
  fi
  mv -f "$install_tmp" "$install_dir/svc"
  install_tmp=""

  say "Installed $installed_version to $install_dir/svc"
  if [ "$upgrading" = true ]; then
    say "A running daemon keeps the previous version until restarted: svc stop, then svc serve"
  fi
  case ":${PATH:-}:" in
    *":$install_dir:"*) ;;
    *)
      say ""
      say "Add svc to your PATH (for example in ~/.profile, ~/.bashrc or ~/.zshrc):"
      say "  export PATH=\"$install_dir:\$PATH\""
      ;;
  esac
}

main "$@"
