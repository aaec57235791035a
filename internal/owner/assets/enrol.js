// Passkey enrolment for cortex. The one-time link's secret is in the URL
// fragment, which is never sent to any server; read it, clear it from the
// address bar and history, and post it with the TOTP code.
"use strict";
(function () {
  const link = window.location.hash.slice(1);
  if (link) history.replaceState(null, "", window.location.pathname);
  const form = document.getElementById("enrol-form");
  const out = document.getElementById("error");
  const done = document.getElementById("done");
  const csrf = document.getElementById("csrf").value;

  function show(msg) { out.textContent = msg; out.hidden = false; }

  if (!link) {
    show("This page needs the one-time link printed by `cortex admin setup` or `cortex admin passkey add`.");
    form.hidden = true;
    return;
  }

  async function post(path, body) {
    const resp = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error(data.message || "The server refused the request (" + resp.status + ").");
    return data;
  }

  form.addEventListener("submit", async function (ev) {
    ev.preventDefault();
    out.hidden = true;
    if (!window.PublicKeyCredential || !PublicKeyCredential.parseCreationOptionsFromJSON) {
      show("This browser cannot create passkeys here.");
      return;
    }
    const button = document.getElementById("enrol-submit");
    button.disabled = true;
    try {
      const begin = await post("/enrol/passkey/begin", {
        link: link,
        code: document.getElementById("enrol-code").value.trim(),
        name: document.getElementById("enrol-name").value,
      });
      const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(begin.publicKey);
      const cred = await navigator.credentials.create({ publicKey });
      const fin = await post("/enrol/passkey/finish", { ceremony: begin.ceremony, credential: cred.toJSON() });
      form.hidden = true;
      done.textContent = "Passkey \u201c" + fin.name + "\u201d added. You can now sign in with it.";
      done.hidden = false;
    } catch (e) {
      show(e && e.name === "NotAllowedError" ? "The passkey request was cancelled or timed out." : String(e.message || e));
      button.disabled = false;
    }
  });
})();
