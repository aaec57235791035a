// The view's side of the host bridge: JSON-RPC over postMessage with the
// window that framed it, nothing else (no network, no storage).
var nextId = 1, pending = {}, handlers = {}, hostCaps = {}, hostContext = {}, lastSize = "";
function send(m) { window.parent.postMessage(m, "*"); }
function request(method, params) {
  var id = nextId++;
  send({jsonrpc: "2.0", id: id, method: method, params: params});
  return new Promise(function (ok, fail) { pending[id] = {ok: ok, fail: fail}; });
}
function notify(method, params) { send({jsonrpc: "2.0", method: method, params: params || {}}); }
window.addEventListener("message", function (e) {
  if (e.source !== window.parent) return;
  var m = e.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id != null && !m.method) {
    var p = pending[m.id];
    if (p) { delete pending[m.id]; if (m.error) p.fail(m.error); else p.ok(m.result); }
    return;
  }
  if (m.id != null) { send({jsonrpc: "2.0", id: m.id, result: {}}); return; } // ping, teardown
  if (handlers[m.method]) handlers[m.method](m.params || {});
});
// applyContext takes the host's theme, style variables and display mode;
// without them the page follows prefers-color-scheme.
function applyContext(c) {
  if (!c) return;
  for (var f in c) hostContext[f] = c[f];
  var root = document.documentElement;
  if (c.theme === "light" || c.theme === "dark") root.setAttribute("data-theme", c.theme);
  var v = c.styles && c.styles.variables;
  if (v) for (var k in v) if (v[k] && /^--[a-z0-9-]+$/.test(k)) root.style.setProperty(k, String(v[k]));
  if (c.displayMode) root.setAttribute("data-mode", c.displayMode);
}
handlers["ui/notifications/host-context-changed"] = applyContext;
function size() {
  var r = document.documentElement, s = Math.ceil(r.scrollWidth) + "x" + Math.ceil(r.scrollHeight);
  if (s === lastSize) return;
  lastSize = s;
  notify("ui/notifications/size-changed", {width: Math.ceil(r.scrollWidth), height: Math.ceil(r.scrollHeight)});
}
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
// openLink asks the host to open a console page; a plain link otherwise.
function link(url, text) {
  var a = el("a", "", text);
  if (!/^https?:\/\//.test(url || "")) return el("span", "", "");
  a.href = url; a.target = "_blank"; a.rel = "noopener noreferrer";
  a.addEventListener("click", function (e) {
    if (!hostCaps.openLinks) return;
    e.preventDefault();
    request("ui/open-link", {url: url}).catch(function () { window.open(url, "_blank", "noopener"); });
  });
  return a;
}
// fullScreenButton offers the host's full-screen mode when it has one.
function fullScreenButton(into) {
  var modes = (hostContext.availableDisplayModes || []);
  if (modes.indexOf("fullscreen") < 0) return;
  var b = el("button", "", "Full screen");
  b.type = "button";
  b.addEventListener("click", function () {
    var want = document.documentElement.getAttribute("data-mode") === "fullscreen" ? "inline" : "fullscreen";
    request("ui/request-display-mode", {mode: want}).then(function (r) {
      if (r && r.mode) document.documentElement.setAttribute("data-mode", r.mode);
      b.textContent = r && r.mode === "fullscreen" ? "Back inline" : "Full screen";
    }, function () {});
  });
  into.appendChild(b);
}
function start(onResult) {
  handlers["ui/notifications/tool-result"] = onResult;
  request("ui/initialize", {
    appInfo: {name: "cortex", version: "1"},
    appCapabilities: {availableDisplayModes: ["inline", "fullscreen"]},
    protocolVersion: "2026-01-26"
  }).then(function (r) {
    r = r || {};
    hostCaps = r.hostCapabilities || {};
    applyContext(r.hostContext);
    notify("ui/notifications/initialized");
    size();
  }, function () {});
  if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
}
