// Passkey sign-in for cortex: ask the server for a challenge, let the
// browser's passkey UI answer it, and send the answer back.
"use strict";
(function () {
  const cfg = document.getElementById("config");
  const btn = document.getElementById("passkey-login");
  const out = document.getElementById("passkey-error");
  if (!cfg || !btn) return;

  function show(msg) { out.textContent = msg; out.hidden = false; }

  async function post(path, body) {
    const resp = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": cfg.dataset.csrf },
      body: JSON.stringify(body),
    });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error(data.message || "The server refused the request (" + resp.status + ").");
    return data;
  }

  btn.addEventListener("click", async function () {
    out.hidden = true;
    if (!window.PublicKeyCredential || !PublicKeyCredential.parseRequestOptionsFromJSON) {
      show("This browser cannot use passkeys here. Sign in with a code.");
      return;
    }
    btn.disabled = true;
    try {
      const begin = await post("/login/passkey/begin", {});
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(begin.publicKey);
      const cred = await navigator.credentials.get({ publicKey });
      const done = await post("/login/passkey/finish", {
        ceremony: begin.ceremony, credential: cred.toJSON(), return: cfg.dataset.return,
      });
      window.location.assign(done.redirect || "/login");
    } catch (e) {
      show(e && e.name === "NotAllowedError" ? "The passkey request was cancelled or timed out." : String(e.message || e));
    } finally {
      btn.disabled = false;
    }
  });
})();
