import assert from "node:assert/strict";
import {
  schtasksCreate,
  schtasksDelete,
  schtasksEnd,
  schtasksQuery,
  schtasksRun,
  windowsCommandLine,
  windowsTaskXml,
} from "../../src/service/windows_task.ts";

Deno.test("windowsTaskXml() writes the whole task for a sample input", () => {
  const xml = windowsTaskXml({
    execPath: "C:\\Program Files\\svc\\svc.exe",
    args: ["serve", "--tcp", "127.0.0.1:3000", "--home", "C:\\Users\\me\\.svc"],
    user: "PC\\me",
  });
  assert.equal(
    xml,
    [
      '<?xml version="1.0" encoding="UTF-16"?>',
      '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
      "  <RegistrationInfo>",
      "    <Description>svc daemon (coding-agent sessions and automations), " +
      "written by &quot;svc service install&quot;</Description>",
      "    <URI>\\svc</URI>",
      "  </RegistrationInfo>",
      "  <Triggers>",
      "    <LogonTrigger>",
      "      <Enabled>true</Enabled>",
      "      <UserId>PC\\me</UserId>",
      "    </LogonTrigger>",
      "  </Triggers>",
      "  <Principals>",
      '    <Principal id="Author">',
      "      <UserId>PC\\me</UserId>",
      "      <LogonType>InteractiveToken</LogonType>",
      "      <RunLevel>LeastPrivilege</RunLevel>",
      "    </Principal>",
      "  </Principals>",
      "  <Settings>",
      "    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>",
      "    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>",
      "    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>",
      "    <AllowHardTerminate>true</AllowHardTerminate>",
      "    <StartWhenAvailable>false</StartWhenAvailable>",
      "    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>",
      "    <IdleSettings>",
      "      <StopOnIdleEnd>false</StopOnIdleEnd>",
      "      <RestartOnIdle>false</RestartOnIdle>",
      "    </IdleSettings>",
      "    <AllowStartOnDemand>true</AllowStartOnDemand>",
      "    <Enabled>true</Enabled>",
      "    <Hidden>false</Hidden>",
      "    <RunOnlyIfIdle>false</RunOnlyIfIdle>",
      "    <WakeToRun>false</WakeToRun>",
      "    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>",
      "    <Priority>7</Priority>",
      "    <RestartOnFailure>",
      "      <Interval>PT1M</Interval>",
      "      <Count>3</Count>",
      "    </RestartOnFailure>",
      "  </Settings>",
      '  <Actions Context="Author">',
      "    <Exec>",
      "      <Command>C:\\Program Files\\svc\\svc.exe</Command>",
      "      <Arguments>serve --tcp 127.0.0.1:3000 --home C:\\Users\\me\\.svc</Arguments>",
      "    </Exec>",
      "  </Actions>",
      "</Task>",
      "",
    ].join("\r\n"),
  );
});

Deno.test("windowsTaskXml() quotes arguments and escapes XML", () => {
  const xml = windowsTaskXml({
    execPath: "C:\\Tools & Co\\svc.exe",
    args: ["serve", "--home", "C:\\Users\\Jo <A>\\svc home\\"],
    user: "CORP\\jo&a",
  });
  assert.match(xml, /<Command>C:\\Tools &amp; Co\\svc\.exe<\/Command>/);
  assert.match(
    xml,
    /<Arguments>serve --home &quot;C:\\Users\\Jo &lt;A&gt;\\svc home\\\\&quot;<\/Arguments>/,
  );
  assert.match(xml, /<UserId>CORP\\jo&amp;a<\/UserId>/);
});

Deno.test("windowsCommandLine() follows CommandLineToArgvW's rules", async (t) => {
  await t.step("plain words stay bare, backslashes included", () => {
    assert.equal(windowsCommandLine(["serve", "C:\\a\\b"]), "serve C:\\a\\b");
  });
  await t.step("spaces and empty words are quoted", () => {
    assert.equal(windowsCommandLine(["C:\\My Dir\\x", ""]), '"C:\\My Dir\\x" ""');
  });
  await t.step('quotes become \\" and backslashes before them double', () => {
    assert.equal(windowsCommandLine(['say "hi"']), '"say \\"hi\\""');
    assert.equal(windowsCommandLine(['a\\"b']), '"a\\\\\\"b"');
  });
  await t.step("a trailing backslash in a quoted word is doubled", () => {
    assert.equal(windowsCommandLine(["C:\\My Dir\\"]), '"C:\\My Dir\\\\"');
  });
  await t.step("% and $ are not special", () => {
    assert.equal(windowsCommandLine(["100%", "$x"]), "100% $x");
  });
});

Deno.test("schtasks argv registers, starts, ends, deletes and queries the task", () => {
  assert.deepEqual(schtasksCreate("C:\\x\\svc-task.xml"), [
    "schtasks",
    "/Create",
    "/TN",
    "svc",
    "/XML",
    "C:\\x\\svc-task.xml",
    "/F",
  ]);
  assert.deepEqual(schtasksRun(), ["schtasks", "/Run", "/TN", "svc"]);
  assert.deepEqual(schtasksEnd(), ["schtasks", "/End", "/TN", "svc"]);
  assert.deepEqual(schtasksDelete(), ["schtasks", "/Delete", "/TN", "svc", "/F"]);
  assert.deepEqual(schtasksQuery(), ["schtasks", "/Query", "/TN", "svc", "/FO", "LIST", "/V"]);
});
