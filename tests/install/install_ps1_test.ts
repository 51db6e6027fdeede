/**
 * install.ps1 cannot run here (no PowerShell on Linux from our registries), so it is
 * parse-checked with the tree-sitter PowerShell grammar and held to install.sh by parity checks:
 * the same files, environment variables, URL layout, SHA256SUMS handling and error messages.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import grammarPackage from "tree-sitter-powershell/package.json" with { type: "json" };
import { Language, type Node, Parser } from "web-tree-sitter";
import { INSTALL_PS1, INSTALL_SH, UNIX_TARGETS, WINDOWS_TARGET } from "./release_fixture.ts";
import { binaryName, SHA256SUMS, TARGETS } from "../../scripts/compile.ts";

const DOCS = new URL("../../docs/install.md", import.meta.url);
const ENV_VARIABLES = ["SVC_DOWNLOAD_BASE", "SVC_INSTALL_DIR", "SVC_VERSION"];

/** A script's text without its comment lines, for checks about what it runs. */
function code(text: string): string {
  return text.split("\n").filter((line) => !line.trimStart().startsWith("#")).join("\n");
}

/** The syntax errors tree-sitter finds, as `line:column text` (1-based). */
async function powershellSyntaxErrors(source: string): Promise<string[]> {
  // The JSON import above puts the package in the module graph, so require can find its files.
  const wasm = createRequire(import.meta.url).resolve(
    `${grammarPackage.name}/tree-sitter-powershell.wasm`,
  );
  await Parser.init();
  const parser = new Parser();
  try {
    parser.setLanguage(await Language.load(await Deno.readFile(wasm)));
    const tree = parser.parse(source);
    assert.ok(tree, "tree-sitter returned no tree");
    const errors: string[] = [];
    const visit = (node: Node) => {
      if (node.isError || node.isMissing) {
        const { row, column } = node.startPosition;
        errors.push(`${row + 1}:${column + 1} ${node.isMissing ? "missing " : ""}${node.type}`);
      }
      for (const child of node.children) if (child) visit(child);
    };
    visit(tree.rootNode);
    tree.delete();
    return errors;
  } finally {
    parser.delete();
  }
}

const sh = await Deno.readTextFile(INSTALL_SH);
const ps1 = await Deno.readTextFile(INSTALL_PS1);

Deno.test("install.ps1 parses with the tree-sitter PowerShell grammar", async (t) => {
  await t.step("install.ps1 has no syntax errors", async () => {
    assert.deepEqual(await powershellSyntaxErrors(ps1), []);
  });

  await t.step("the check catches a broken copy", async () => {
    const unbalanced = ps1.replace("    } finally {", "    } finally");
    assert.notEqual(unbalanced, ps1);
    assert.notDeepEqual(await powershellSyntaxErrors(unbalanced), []);
    const unterminated = ps1.replace('to $destination"', "to $destination");
    assert.notDeepEqual(await powershellSyntaxErrors(unterminated), []);
  });
});

Deno.test("install.sh and install.ps1 read the same environment variables", () => {
  const shVariables = new Set([...code(sh).matchAll(/\$\{?(SVC_[A-Z_]+)/g)].map((m) => m[1]));
  const ps1Variables = new Set([...code(ps1).matchAll(/\$env:(SVC_[A-Z_]+)/g)].map((m) => m[1]));
  assert.deepEqual([...shVariables].sort(), ENV_VARIABLES);
  assert.deepEqual([...ps1Variables].sort(), ENV_VARIABLES);
});

Deno.test("install.sh and install.ps1 cover the five release targets between them", () => {
  // The targets and names `deno task compile` writes to dist/.
  assert.deepEqual([...TARGETS].sort(), [...UNIX_TARGETS, WINDOWS_TARGET].sort());
  assert.equal(binaryName(WINDOWS_TARGET), `svc-${WINDOWS_TARGET}.exe`);
  for (const target of UNIX_TARGETS) assert.equal(binaryName(target), `svc-${target}`);
  assert.equal(SHA256SUMS, "SHA256SUMS");

  const arches = [...sh.matchAll(/arch_part="([^"]+)"/g)].map((m) => m[1]);
  const systems = [...sh.matchAll(/os_part="([^"]+)"/g)].map((m) => m[1]);
  const shTargets = arches.flatMap((arch) => systems.map((os) => `${arch}-${os}`));
  assert.deepEqual(shTargets.sort(), [...UNIX_TARGETS].sort());
  assert.match(sh, /asset="svc-\$target"/);

  assert.match(ps1, new RegExp(`\\$target = '${WINDOWS_TARGET}'`));
  assert.match(ps1, /\$asset = "svc-\$target\.exe"/);
  assert.match(ps1, /if \(\$arch -ne 'AMD64'\)/, "only x86_64 Windows is accepted");
});

Deno.test("install.sh and install.ps1 share the URL layout and defaults", () => {
  for (const [name, text] of [["install.sh", sh], ["install.ps1", ps1]]) {
    assert.match(text, /"\$base\/latest\/download"/, `${name}: latest release URL`);
    assert.match(text, /"\$base\/download\/v\$version"/, `${name}: pinned release URL`);
    assert.match(text, /\$release_?[uU]rl\/SHA256SUMS|'SHA256SUMS'/, `${name}: SHA256SUMS`);
  }
  assert.match(sh, /^DEFAULT_DOWNLOAD_BASE=""$/m, "no release host yet");
  assert.match(ps1, /^\s+\$defaultDownloadBase = ''$/m, "no release host yet");
  assert.match(sh, /install_dir="\$HOME\/\.svc\/bin"/);
  assert.match(ps1, /Join-Path \$env:USERPROFILE '\.svc\\bin'/);
});

Deno.test("install.sh and install.ps1 verify SHA256SUMS the same way", () => {
  // Both accept "<hex>  <file>" and sha256sum's binary-mode "<hex> *<file>", lowercased.
  assert.match(sh, /\$2 == asset \|\| \$2 == "\*" asset \{ print tolower\(\$1\) \}/);
  assert.match(ps1, /\$fields\[1\] -ceq \$asset -or \$fields\[1\] -ceq "\*\$asset"/);
  assert.match(ps1, /\$fields\[0\]\.ToLowerInvariant\(\)/);
  assert.match(ps1, /Get-FileHash -Algorithm SHA256/);
  assert.match(sh, /sha256sum "\$1"/);
  assert.match(sh, /shasum -a 256 "\$1"/);
});

Deno.test("install.sh and install.ps1 give the same error messages", () => {
  const shared = [
    "SVC_DOWNLOAD_BASE is not set: svc has no public release host yet, so set it to the URL " +
    "that serves the release files (see docs/install.md)",
    "SVC_DOWNLOAD_BASE must be an https:// URL (plain http only on loopback), got ",
    "is not a version such as 0.2.0",
    "Cannot download ",
    ": check SVC_DOWNLOAD_BASE and SVC_VERSION",
    " has no entry for ",
    " has a malformed entry for ",
    "Checksum mismatch for ",
    "; nothing was installed",
    "Unsupported architecture ",
    " does not run on this machine",
    "A running daemon keeps the previous version until restarted: svc stop, then svc serve",
  ];
  for (const message of shared) {
    assert.ok(sh.includes(message), `install.sh lacks "${message}"`);
    assert.ok(ps1.includes(message), `install.ps1 lacks "${message}"`);
  }
});

Deno.test("install.sh and install.ps1 never elevate, exit the caller, or run a download as code", () => {
  assert.doesNotMatch(code(sh), /\bsudo\b|\bdoas\b|\beval\b|\|\s*(ba|z|da)?sh\b/);
  assert.doesNotMatch(code(ps1), /Invoke-Expression|\biex\b|RunAs|Start-Process/i);
  assert.doesNotMatch(code(ps1), /^\s*exit\b/im, "exit would close an `irm | iex` window");
});

Deno.test("docs/install.md names the variables, targets and layout of both scripts", async () => {
  const docs = await Deno.readTextFile(DOCS);
  for (const name of [...ENV_VARIABLES, ...UNIX_TARGETS, WINDOWS_TARGET, "SHA256SUMS"]) {
    assert.ok(docs.includes(name), `docs/install.md lacks "${name}"`);
  }
  assert.ok(docs.includes("/latest/download/"), "latest layout");
  assert.ok(docs.includes("/download/v"), "pinned layout");
});
