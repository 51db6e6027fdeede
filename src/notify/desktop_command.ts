/**
 * The desktop channel's program per OS (D31), pure: Linux (and the BSDs)
 * `notify-send`, macOS `osascript`, Windows a toast through PowerShell. The
 * title and the body are always separate arguments or environment
 * variables, never spliced into a script or a shell line, so quotes, `$()`
 * and newlines in them stay text.
 */
import type { Notification } from "./content.ts";

/** A program to run: argv (found on PATH) and extra environment. */
export interface DesktopCommand {
  argv: string[];
  env: Record<string, string>;
}

/** osascript reads the title and body from its arguments (`item N of argv`). */
const APPLESCRIPT = [
  "on run argv",
  "display notification (item 2 of argv) with title (item 1 of argv)",
  "end run",
];

/** PowerShell reads them from the environment and escapes them into the toast's XML. */
const POWERSHELL_TOAST = [
  "$ErrorActionPreference = 'Stop'",
  "[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] > $null",
  "[Windows.Data.Xml.Dom.XmlDocument, Windows.Data.Xml.Dom.XmlDocument, ContentType = WindowsRuntime] > $null",
  "$title = [Security.SecurityElement]::Escape($env:SVC_NOTIFY_TITLE)",
  "$body = [Security.SecurityElement]::Escape($env:SVC_NOTIFY_BODY)",
  "$xml = New-Object Windows.Data.Xml.Dom.XmlDocument",
  '$xml.LoadXml("<toast><visual><binding template=`"ToastGeneric`"><text>$title</text><text>$body</text></binding></visual></toast>")',
  "$toast = New-Object Windows.UI.Notifications.ToastNotification $xml",
  "[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('svc').Show($toast)",
].join("; ");

/** The program that shows `notification` on `os`. */
export function desktopCommand(
  os: typeof Deno.build.os,
  notification: Notification,
): DesktopCommand {
  const { title, body } = notification;
  switch (os) {
    case "darwin":
      return {
        argv: ["osascript", ...APPLESCRIPT.flatMap((line) => ["-e", line]), title, body],
        env: {},
      };
    case "windows":
      return {
        argv: ["powershell.exe", "-NoProfile", "-NonInteractive", "-Command", POWERSHELL_TOAST],
        env: { SVC_NOTIFY_TITLE: title, SVC_NOTIFY_BODY: body },
      };
    default:
      return { argv: ["notify-send", "--app-name=svc", "--", title, body], env: {} };
  }
}

/** The program `svc doctor` looks for on `os`. */
export function desktopProgram(os: typeof Deno.build.os): string {
  return os === "darwin" ? "osascript" : os === "windows" ? "powershell.exe" : "notify-send";
}
