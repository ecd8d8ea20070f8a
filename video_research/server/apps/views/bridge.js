// The view's side of MCP Apps: JSON-RPC 2.0 over postMessage with the host, as the
// io.modelcontextprotocol/ui extension defines it (ui/initialize, then the host's
// tool-input / tool-result / tool-cancelled / host-context-changed notifications;
// tools/call, ui/open-link, ui/request-display-mode and ui/update-model-context the
// other way, each only where the host's capabilities or context offer it). Hand-written rather than the reference App class: the
// few messages a view needs fit in a few kilobytes, where the bundled class and its
// schema library weigh 150 KB gzipped, over the view's budget on its own.
"use strict";
const Bridge = (() => {
  const PROTOCOL = "2026-01-26";
  const pending = new Map();
  const handlers = new Map();
  const early = [];
  let nextId = 1;
  let hostContext = {};
  let hostCapabilities = {};

  const post = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");

  function request(method, params) {
    const id = nextId++;
    post({ id, method, params });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }

  const notify = (method, params) => post({ method, params: params || {} });

  function dispatch(message) {
    const handler = handlers.get(message.method);
    if (!handler && message.id === undefined) {
      early.push(message); // a result that came before the view said what it wants
      return;
    }
    let result = {};
    let error;
    try {
      if (handler) result = handler(message.params || {}) || {};
      else if (message.method !== "ping" && message.method !== "ui/resource-teardown")
        error = { code: -32601, message: `Method not found: ${message.method}` };
    } catch (failure) {
      error = { code: -32603, message: String(failure && failure.message) };
    }
    if (message.id !== undefined) post(error ? { id: message.id, error } : { id: message.id, result });
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return; // only the host speaks to the view
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(message.error);
      else waiting.resolve(message.result);
      return;
    }
    dispatch(message);
  });

  function applyContext(context) {
    hostContext = { ...hostContext, ...context };
    const root = document.documentElement;
    if (context.theme === "light" || context.theme === "dark") {
      root.dataset.theme = context.theme;
      root.style.colorScheme = context.theme;
    }
    const styles = context.styles || {};
    for (const [name, value] of Object.entries(styles.variables || {})) {
      if (name.startsWith("--") && typeof value === "string") root.style.setProperty(name, value);
    }
    if (styles.css && typeof styles.css.fonts === "string" && !document.getElementById("host-fonts")) {
      const fonts = document.createElement("style");
      fonts.id = "host-fonts";
      fonts.textContent = styles.css.fonts;
      document.head.appendChild(fonts);
    }
  }
  handlers.set("ui/notifications/host-context-changed", applyContext);

  function reportSize() {
    let last = "";
    const measure = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      const width = Math.ceil(window.innerWidth);
      if (`${width}x${height}` === last) return;
      last = `${width}x${height}`;
      notify("ui/notifications/size-changed", { width, height });
    };
    new ResizeObserver(() => requestAnimationFrame(measure)).observe(document.body);
    measure();
  }

  return {
    /** Register a notification handler (before connect: results may come at once). */
    on(method, handler) {
      handlers.set(method, handler);
      for (const message of early.splice(0)) dispatch(message);
    },
    async connect(name) {
      const answer = await request("ui/initialize", {
        appInfo: { name, version: "1" },
        appCapabilities: { availableDisplayModes: ["inline", "fullscreen", "pip"] },
        protocolVersion: PROTOCOL,
      });
      hostCapabilities = (answer && answer.hostCapabilities) || {};
      applyContext((answer && answer.hostContext) || {});
      notify("ui/notifications/initialized");
      reportSize();
      return answer;
    },
    get context() {
      return hostContext;
    },
    get capabilities() {
      return hostCapabilities;
    },
    /** Whether the host passes tools/call on to the server (else a view offers no action). */
    get canCallTools() {
      return Boolean(hostCapabilities.serverTools);
    },
    /** Whether the host offers display `mode` (fullscreen, pip) beside inline. */
    offers(mode) {
      return (hostContext.availableDisplayModes || []).includes(mode);
    },
    /** Ask for `mode`; the mode the host granted ("inline" when it has none to give). */
    async displayMode(mode) {
      if (!this.offers(mode)) return "inline";
      try {
        const granted = await request("ui/request-display-mode", { mode });
        return (granted && granted.mode) || "inline";
      } catch (_) {
        return "inline";
      }
    },
    /** Tell the model what the person did here, for its next turn (where the host takes it). */
    tellModel(text, structuredContent) {
      if (!hostCapabilities.updateModelContext) return Promise.resolve(false);
      const params = { content: [{ type: "text", text }] };
      if (structuredContent) params.structuredContent = structuredContent;
      return request("ui/update-model-context", params).then(() => true, () => false);
    },
    /** tools/call through the host: the whole CallToolResult, or a thrown ToolFailure. */
    async callToolResult(name, args) {
      if (!hostCapabilities.serverTools) throw new ToolFailure("This chat app can't run actions from here.");
      let result;
      try {
        result = await request("tools/call", { name, arguments: args || {} });
      } catch (error) {
        throw new ToolFailure((error && error.message) || "The host refused the call.", error);
      }
      if (!result || result.isError) throw new ToolFailure(errorText(result || {}), result);
      return result;
    },
    /** tools/call through the host: the tool's structured result. */
    async callTool(name, args) {
      return (await this.callToolResult(name, args)).structuredContent || {};
    },
    openLink(url) {
      if (!hostCapabilities.openLinks) return Promise.resolve(undefined);
      return request("ui/open-link", { url }).catch(() => undefined);
    },
  };
})();

class ToolFailure extends Error {}

/** What went wrong, said for a person: the server's own message written for people where
 * it has one, a plain sentence for the kinds of failure people cannot act on. The hint,
 * written for the model (which tool to call next), stays out of the view. */
const PLAIN = {
  forbidden: "You don't have permission to do that here. Ask an admin if you need it.",
  unauthorized: "You're not signed in to this server, or your sign-in expired.",
  rate_limited: "Too many requests just now. Try again in a moment.",
  timeout: "That took too long. Try again in a moment.",
  network: "The server couldn't reach a service it needs. Try again in a moment.",
  unavailable: "The service is unavailable right now. Try again in a moment.",
  internal_error: "Something went wrong on the server.",
};

function errorText(result) {
  const text = ((result.content || []).find((block) => block.type === "text") || {}).text || "";
  try {
    const parsed = JSON.parse(text);
    const body = parsed && typeof parsed.error === "object" ? parsed.error : parsed;
    const message = body && (typeof body.error === "string" ? body.error : body.message);
    const plain = body && PLAIN[body.category];
    if (plain) return plain;
    if (message) return message;
  } catch (_) {
    /* not JSON: the text as it is */
  }
  return text || "Something went wrong, and the server didn't say what.";
}

/** An element with attributes and children; text always goes in as text, never as HTML. */
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function clock(seconds) {
  if (typeof seconds !== "number" || !isFinite(seconds) || seconds < 0) return "";
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function spokenClock(seconds) {
  const whole = Math.floor(seconds || 0);
  const parts = [];
  if (whole >= 3600) parts.push(`${Math.floor(whole / 3600)} h`);
  if (whole >= 60) parts.push(`${Math.floor((whole % 3600) / 60)} min`);
  parts.push(`${whole % 60} s`);
  return parts.join(" ");
}

/** "12:34" or "1:02:03" (or a bare number) as seconds; null when it is not a time. */
function parseClock(text) {
  const match = /^\s*\[?(\d{1,2}(?::\d{1,2}){0,2})\]?/.exec(String(text || ""));
  if (!match) return null;
  return match[1].split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

const YOUTUBE_ID = /(?:[?&]v=|youtu\.be\/|\/embed\/|\/shorts\/|\/live\/)([A-Za-z0-9_-]{11})/;

/** The YouTube ID of a link, or of a bare ID when `url` says it is YouTube's. */
function youtubeId(url, fallbackId) {
  const match = YOUTUBE_ID.exec(String(url || ""));
  if (match) return match[1];
  if (/youtu/.test(String(url || "")) && /^[A-Za-z0-9_-]{11}$/.test(String(fallbackId || ""))) return fallbackId;
  return null;
}

const PLAYER_ORIGIN = "https://www.youtube-nocookie.com";

/** The embedded player, started at `seconds` (a new src is a seek). */
function playerFrame(videoId, seconds, title) {
  const start = Math.max(0, Math.floor(seconds || 0));
  return el("iframe", {
    class: "player",
    src: `${PLAYER_ORIGIN}/embed/${encodeURIComponent(videoId)}?start=${start}&autoplay=1&rel=0`,
    title: `Video player: ${title || videoId}, from ${clock(start)}`,
    allow: "autoplay; encrypted-media; picture-in-picture; fullscreen",
    referrerpolicy: "strict-origin-when-cross-origin",
    allowfullscreen: true,
    "data-start": start,
  });
}

/** Arrow keys, Home and End move the focus between the `selector` items of `list`. */
function arrowKeys(list, selector) {
  list.addEventListener("keydown", (event) => {
    const items = [...list.querySelectorAll(selector)];
    const index = items.indexOf(document.activeElement);
    if (index < 0) return;
    const next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    items[Math.max(0, Math.min(items.length - 1, next))].focus();
  });
}

/** Tell the person what happened: errors as an alert, the rest politely. */
function announce(region, text, isError) {
  region.textContent = "";
  region.className = isError ? "status error" : "status";
  region.setAttribute("role", isError ? "alert" : "status");
  if (text) region.append(text);
}

/** The host cancelled the call this view waits for: say so instead of waiting forever. */
function onCancelled(summary, status) {
  Bridge.on("ui/notifications/tool-cancelled", (params) => {
    summary.textContent = "";
    const why = params && typeof params.reason === "string" && params.reason ? ` (${params.reason.slice(0, 120)})` : "";
    announce(status, `The request was cancelled${why}. Nothing was changed.`);
    markPainted();
  });
}

/** Mark the first paint after a result, for the host (and the tests) to read. */
function markPainted() {
  requestAnimationFrame(() =>
    setTimeout(() => {
      document.body.dataset.paintedAt = String(performance.timeOrigin + performance.now());
    }, 0),
  );
}
