// A minimal MCP Apps host for the browser tests: the reference SDK's MCP client talks to
// our server over streamable HTTP (same origin as this page), and its AppBridge runs each
// view in a sandboxed iframe, under the CSP the view's resource declares, as a chat host
// would. The tests drive it through window.host.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const APPS = "io.modelcontextprotocol/ui";
const APP_MIME = "text/html;profile=mcp-app";

// A sans host font, as the chat hosts people use set one (Liberation Sans ships with
// Debian's chromium; DejaVu Sans is the fallback every Debian has).
const SANS = '"Liberation Sans", "DejaVu Sans", Arial, sans-serif';

const THEMES = {
  light: {
    "--color-background-primary": "#ffffff",
    "--color-background-secondary": "#f5f5f4",
    "--color-text-primary": "#1c1917",
    "--color-text-secondary": "#57534e",
    "--color-border-primary": "#d6d3d1",
    "--font-sans": SANS,
  },
  dark: {
    "--color-background-primary": "#0f172a",
    "--color-background-secondary": "#1e293b",
    "--color-text-primary": "#e2e8f0",
    "--color-text-secondary": "#94a3b8",
    "--color-border-primary": "#334155",
    "--font-sans": SANS,
  },
};

/** The policy a host builds from a resource's declared domains: nothing else loads. */
function policy(csp) {
  const list = (domains) => (domains && domains.length ? domains.join(" ") : "'none'");
  const resources = (csp && csp.resourceDomains) || [];
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources.join(" ")}`.trim(),
    `style-src 'unsafe-inline' ${resources.join(" ")}`.trim(),
    `img-src data: blob: ${resources.join(" ")}`.trim(),
    `font-src data: ${resources.join(" ")}`.trim(),
    `media-src data: blob: ${resources.join(" ")}`.trim(),
    `connect-src ${list(csp && csp.connectDomains)}`,
    `frame-src ${list(csp && csp.frameDomains)}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

function withPolicy(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp)}">`;
  return html.replace(/<head[^>]*>/i, (head) => head + meta);
}

let client = null;
let tools = [];
let bridge = null;

/** A tool call as a chat host makes one: its timeout (the SDK's 60 s) restarts at each
 *  progress notification, so a long index on a busy machine (the suite runs on every
 *  core) is waited for while it reports, and one that stops reporting still times out. */
function callTool(name, args) {
  return client.callTool({ name, arguments: args }, { onprogress: () => {}, resetTimeoutOnProgress: true });
}

window.host = {
  async open({ withApps = true, token = null } = {}) {
    client = new Client(
      { name: "apps-test-host", version: "1.0.0" },
      { capabilities: withApps ? { extensions: { [APPS]: { mimeTypes: [APP_MIME] } } } : {} },
    );
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href), { requestInit: { headers } }));
    tools = (await client.listTools()).tools;
    return tools.map((tool) => ({ name: tool.name, meta: tool._meta ?? null }));
  },

  async call(name, args) {
    return callTool(name, args);
  },

  /** Call `name` and show its result: in its view when the tool links one, else as JSON.
   *  `result` replaces the call (to time a large result without a server that has it);
   *  `view` names the ui:// view for a tool this server does not have; `width` is the
   *  chat column's; `displayModes` the modes this host offers; `capabilities` replaces
   *  the host's; `pending` sends the input but holds the result back (for `cancel`). */
  async show(name, args, { theme = "light", result = null, view = null, width = 720, displayModes = ["inline", "fullscreen"], capabilities = null, pending = false } = {}) {
    const tool = tools.find((candidate) => candidate.name === name);
    const outcome = pending ? null : result || (await callTool(name, args));
    const stage = document.getElementById("stage");
    const uri = view || (tool && tool._meta && tool._meta.ui && tool._meta.ui.resourceUri);
    if (!uri) {
      stage.replaceChildren(Object.assign(document.createElement("pre"), { id: "plain", textContent: JSON.stringify(outcome, null, 2) }));
      return { uri: null };
    }
    const content = (await client.readResource({ uri })).contents[0];
    if (bridge) await bridge.close();
    window.modelContext = [];
    window.displayModeRequests = [];
    window.opened = [];
    const frame = document.createElement("iframe");
    frame.name = "view";
    frame.title = (tool && tool.title) || name;
    frame.setAttribute("sandbox", "allow-scripts");
    frame.style.width = `${width}px`;
    frame.srcdoc = withPolicy(content.text, content._meta && content._meta.ui && content._meta.ui.csp);
    stage.replaceChildren(frame);
    document.body.dataset.theme = theme;
    const hostCapabilities = capabilities || { serverTools: {}, openLinks: {}, logging: {}, updateModelContext: { text: {} }, sandbox: { csp: (content._meta && content._meta.ui && content._meta.ui.csp) || {} } };
    let inlineHeight = 400;
    const hostContext = {
      theme,
      displayMode: "inline",
      availableDisplayModes: displayModes,
      platform: "web",
      toolInfo: tool ? { tool } : undefined,
      containerDimensions: { maxHeight: 1400, width },
      styles: { variables: THEMES[theme] },
    };
    bridge = new AppBridge(client, { name: "apps-test-host", version: "1.0.0" }, hostCapabilities, { hostContext });
    bridge.onsizechange = ({ height }) => {
      if (!height) return;
      inlineHeight = Math.min(height, 1400);
      if (frame.dataset.mode !== "fullscreen") frame.style.height = `${inlineHeight}px`;
    };
    bridge.onopenlink = async ({ url }) => { window.opened.push(url); return {}; };
    bridge.onupdatemodelcontext = async (params) => { window.modelContext.push(params); return {}; };
    bridge.onrequestdisplaymode = async ({ mode }) => {
      window.displayModeRequests.push(mode);
      const granted = displayModes.includes(mode) ? mode : "inline";
      // Fullscreen: the frame takes the whole window, as a chat host's overlay does.
      frame.dataset.mode = granted;
      if (granted === "fullscreen") Object.assign(frame.style, { position: "fixed", inset: "0", width: "100vw", height: "100vh", borderRadius: "0", zIndex: "10" });
      else Object.assign(frame.style, { position: "", inset: "", width: `${width}px`, height: `${inlineHeight}px`, borderRadius: "", zIndex: "" });
      bridge.setHostContext({ ...hostContext, displayMode: granted, containerDimensions: granted === "fullscreen" ? { height: innerHeight, width: innerWidth } : { maxHeight: 1400, width } });
      return { mode: granted };
    };
    const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    await initialized;
    await bridge.sendToolInput({ arguments: args });
    if (pending) return { uri };
    window.sentAt = performance.timeOrigin + performance.now();
    await bridge.sendToolResult(outcome);
    return { uri };
  },

  /** The host (or the person) cancelled the tool call the view waits for. */
  async cancel(reason) {
    await bridge.sendToolCancelled({ reason });
  },
};
