// skillstore's catalog pages: search as you type, and, where the server
// asks for a bearer token, the token kept in this tab's session storage
// and sent in the Authorization header of every request the page makes
// (never in an address). Pages work without this script on servers that
// ask for no token.
"use strict";
(() => {
  const KEY = "skillstore.token";
  const PAGE = "X-Skillstore-Page", REFUSED = "X-Skillstore-Refused";
  const tokenMode = () => document.body.dataset.token === "required";
  const token = () => sessionStorage.getItem(KEY) || "";

  function headers(extra) {
    const h = Object.assign({ [PAGE]: "1" }, extra);
    if (tokenMode() && token()) h.Authorization = "Bearer " + token();
    return h;
  }

  function get(url, extra) {
    return fetch(url, { headers: headers(extra), credentials: "same-origin", cache: "no-store" });
  }

  // isPage reports an answer that is one of the catalog's pages: nothing
  // else is ever shown as one.
  const isPage = (r) => r.headers.get(PAGE) === "1" && (r.headers.get("Content-Type") || "").startsWith("text/html");

  // pageURL reports the addresses of pages the script fetches with the
  // token: the index, a skill, a file's page, sources, connect; not a
  // download, the MCP endpoint, the discovery index or another site.
  function pageURL(url) {
    if (url.protocol !== location.protocol || url.origin !== location.origin) return false;
    const p = url.pathname;
    if (p === "/" || p === "/sources" || p === "/connect" || p === "/reviews") return true;
    return p.startsWith("/skills/") && !/^\/skills\/[^/]+\/(raw\/|zip$)/.test(p);
  }

  let current = location.pathname + location.search; // the page shown, for popstate

  // show puts a fetched page in place of this one.
  function show(html, url, push) {
    const doc = new DOMParser().parseFromString(html, "text/html");
    document.title = doc.title;
    document.body.replaceWith(document.adoptNode(doc.body));
    if (push) history.pushState(null, "", url);
    else if (url !== location.href) history.replaceState(null, "", url);
    current = location.pathname + location.search;
    const hash = new URL(url, location.href).hash;
    const target = hash && document.getElementById(decodeURIComponent(hash.slice(1)));
    if (target) target.scrollIntoView();
    else if (push) window.scrollTo(0, 0);
    ready();
  }

  let navigation = 0;
  async function navigate(url, push) {
    const n = ++navigation;
    clearTimeout(timer);
    searching++; // a search under way is older than this page
    try {
      const r = await get(url);
      if (n !== navigation) return;
      if (!isPage(r)) {
        if (r.ok && /^attachment/i.test(r.headers.get("Content-Disposition") || "")) {
          // A download reached by an address (a link a skill's text
          // gives): saved, then the catalog is shown in place of the
          // sign-in page.
          await save(r, "");
          if (!push) navigate("/", false);
        } else if (push) location.assign(url); // the browser's to open
        return;
      }
      const html = await r.text();
      if (n !== navigation) return;
      if (r.headers.get(REFUSED)) sessionStorage.removeItem(KEY); // refused: the sign-in page asks again
      show(html, url, push);
    } catch (e) { /* the page stays as it is */ }
  }

  // Images the server asks a token for are fetched with it. An SVG is
  // left as its alternative text: as a blob: address it would lose the
  // policy that keeps it from running when opened on its own.
  async function loadImages() {
    for (const img of document.querySelectorAll("img[data-src]")) {
      const src = img.dataset.src;
      img.removeAttribute("data-src");
      try {
        const r = await get(src);
        if (r.headers.get(REFUSED)) { navigate(location.href, false); return; }
        const blob = await r.blob();
        if (r.ok && !blob.type.includes("svg")) img.src = URL.createObjectURL(blob);
      } catch (e) { /* the alternative text stays */ }
    }
  }

  async function download(a) {
    try {
      const r = await get(a.href);
      if (!r.ok || r.headers.get(REFUSED) || isPage(r)) { navigate(a.href, true); return; } // a page says what went wrong
      await save(r, a.getAttribute("download") || "");
    } catch (e) {
      navigate(a.href, true);
    }
  }

  // save hands a fetched file to the browser as a download called name
  // (else the name its Content-Disposition gives).
  async function save(r, name) {
    if (!name) {
      const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(r.headers.get("Content-Disposition") || "");
      if (m) try { name = decodeURIComponent(m[1]); } catch (e) { name = m[1]; }
    }
    const url = URL.createObjectURL(await r.blob());
    const tmp = document.createElement("a");
    tmp.href = url;
    tmp.download = name;
    document.body.appendChild(tmp);
    tmp.click();
    tmp.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // Search as you type: the list alone is fetched and swapped in.
  let searching = 0, timer = 0;
  function search(input) {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const n = ++searching;
      const q = input.value.trim();
      const url = q ? "/?q=" + encodeURIComponent(q) : "/";
      let r, html;
      try {
        r = await get(url, { "X-Skillstore-Part": "results" });
        html = await r.text();
      } catch (e) {
        return;
      }
      if (n !== searching) return;
      if (r.headers.get(REFUSED)) { navigate(location.href, false); return; }
      if (!r.ok || !isPage(r)) return;
      const results = document.getElementById("results");
      if (!results) return;
      const doc = new DOMParser().parseFromString("<div id=\"results\">" + html + "</div>", "text/html");
      results.replaceWith(document.adoptNode(doc.getElementById("results")));
      history.replaceState(null, "", url);
      current = location.pathname + location.search;
      document.title = (q ? "Search: " + q : "Skills") + " · skillstore";
    }, 120);
  }

  // decide sends a reviewer's decision on the version box shows to the
  // Skills API, with the tab's token in the Authorization header and no
  // cookie: the review page itself only reads. The decision names the
  // version's digest set as the page lists it.
  async function decide(box, decision) {
    const out = box.querySelector(".outcome");
    const reason = box.querySelector(".reason").value.trim();
    if (decision === "reject" && !reason) { out.textContent = "Give a reason to reject it."; return; }
    let files;
    try { files = JSON.parse(box.dataset.files); } catch (e) { out.textContent = "The page lists no digest set: reload it."; return; }
    const body = { decision: decision, files: files };
    if (reason) body.reason = reason;
    const buttons = box.querySelectorAll("button");
    for (const b of buttons) b.disabled = true;
    out.textContent = "Sending…";
    try {
      const h = { "Content-Type": "application/json", "Accept": "application/json" };
      if (token()) h.Authorization = "Bearer " + token();
      const url = "/v1/skills/" + encodeURIComponent(box.dataset.skill) + "/versions/" + encodeURIComponent(box.dataset.version) + "/review";
      const r = await fetch(url, { method: "POST", headers: h, body: JSON.stringify(body), credentials: "omit", cache: "no-store" });
      let j = null;
      try { j = await r.json(); } catch (e) { /* no JSON: the status says it */ }
      if (r.ok) {
        out.textContent = (decision === "approve" ? "Approved" : "Rejected") + (j && j.status ? " (" + j.status + ")" : "");
        box.dataset.done = decision;
        return;
      }
      out.textContent = "Refused: " + (j && j.error && j.error.message ? j.error.message : "the server answered " + r.status);
    } catch (e) {
      out.textContent = "The server could not be reached.";
    }
    for (const b of buttons) b.disabled = false;
  }

  function ready() {
    for (const box of document.querySelectorAll(".decide[data-version]")) {
      for (const b of box.querySelectorAll("button[data-decision]")) b.addEventListener("click", () => decide(box, b.dataset.decision));
    }
    const form = document.getElementById("signin-form");
    if (form) {
      if (token()) { navigate(location.href, false); return; }
      const input = document.getElementById("token");
      input.focus();
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        sessionStorage.setItem(KEY, input.value.trim());
        navigate(location.href, false);
      });
    }
    const out = document.getElementById("signout");
    if (out) {
      out.hidden = !token();
      out.addEventListener("click", () => { sessionStorage.removeItem(KEY); navigate(location.href, false); });
    }
    const q = document.getElementById("q");
    if (q) q.addEventListener("input", () => search(q));
    if (tokenMode()) loadImages();
  }

  document.addEventListener("click", (e) => {
    if (!tokenMode() || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target.closest("a[href]");
    if (!a || a.target) return;
    const url = new URL(a.href, location.href);
    if (url.protocol !== location.protocol || url.origin !== location.origin) return; // a blob: download, another site
    if (url.pathname === location.pathname && url.search === location.search && url.hash) return; // an anchor on this page
    if (a.hasAttribute("download")) { e.preventDefault(); download(a); return; }
    if (!pageURL(url)) return; // the browser's to open
    e.preventDefault();
    navigate(url.href, true);
  });

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!tokenMode() || form.id === "signin-form" || form.method.toLowerCase() !== "get") return;
    const url = new URL(form.action, location.href);
    if (!pageURL(url)) return;
    e.preventDefault();
    url.search = new URLSearchParams(new FormData(form)).toString();
    navigate(url.href, true);
  });

  window.addEventListener("popstate", () => {
    if (!tokenMode() || location.pathname + location.search === current) return; // only the fragment changed
    navigate(location.href, false);
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
