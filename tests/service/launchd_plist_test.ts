import assert from "node:assert/strict";
import { launchdPlist, xmlText } from "../../src/service/launchd_plist.ts";

Deno.test("launchdPlist() writes the whole plist for a sample input", () => {
  const plist = launchdPlist({
    label: "svc.daemon",
    execPath: "/usr/local/bin/svc",
    args: ["serve", "--tcp", "127.0.0.1:3000"],
    home: "/Users/me/.svc",
    logDir: "/Users/me/.svc/logs",
    env: { PATH: "/opt/homebrew/bin:/usr/bin:/bin" },
  });
  assert.equal(
    plist,
    `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>svc.daemon</string>
  <key>ProgramArguments</key>
  <array>
    <string>/usr/local/bin/svc</string>
    <string>serve</string>
    <string>--tcp</string>
    <string>127.0.0.1:3000</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>SVC_HOME</key>
    <string>/Users/me/.svc</string>
    <key>PATH</key>
    <string>/opt/homebrew/bin:/usr/bin:/bin</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ExitTimeOut</key>
  <integer>30</integer>
  <key>StandardOutPath</key>
  <string>/Users/me/.svc/logs/launchd.out.log</string>
  <key>StandardErrorPath</key>
  <string>/Users/me/.svc/logs/launchd.err.log</string>
</dict>
</plist>
`,
  );
});

Deno.test("launchdPlist() escapes XML and keeps spaces, quotes, % and $ literal", () => {
  const plist = launchdPlist({
    label: "svc.daemon",
    execPath: "/Users/me/My Apps/svc & co/svc",
    args: ["serve", `<a> "b" 'c' %d $e`],
    home: "/Users/me/svc <home>",
    logDir: "/Users/me/svc <home>/logs/",
  });
  assert.match(plist, /<string>\/Users\/me\/My Apps\/svc &amp; co\/svc<\/string>/);
  assert.match(plist, /<string>&lt;a&gt; &quot;b&quot; &apos;c&apos; %d \$e<\/string>/);
  assert.match(plist, /<key>SVC_HOME<\/key>\n {4}<string>\/Users\/me\/svc &lt;home&gt;<\/string>/);
  assert.match(plist, /<string>\/Users\/me\/svc &lt;home&gt;\/logs\/launchd\.err\.log<\/string>/);
  assert.doesNotMatch(plist, /<key>PATH<\/key>/);
});

Deno.test("xmlText() escapes the five XML characters and refuses control characters", () => {
  assert.equal(xmlText(`a&b<c>d"e'f`), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  assert.equal(xmlText("tab\tnewline\n"), "tab\tnewline\n");
  assert.throws(() => xmlText("bell\u0007"), /control character/);
});
