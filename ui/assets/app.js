// skillstore's catalog pages: search as you type, and, where the server
// asks for a bearer token, the token kept in this tab's session storage
// and sent in the Authorization header of every request the page makes
// (never in an address). Pages work without this script on servers that
// ask for no token.
"use strict";
(() => {
  const KEY = "skillstore.token";
  const tokenMode = () => document.body.dataset.token === "required";
  const token = () => sessionStorage.getItem(KEY) || "";

  function headers(extra) {
    const h = Object.assign({ "X-Skillstore-Page": "1" }, extra);
    if (tokenMode() && token()) h.Authorization = "Bearer " + token();
    return h;
  }

  function get(url, extra) {
    return fetch(url, { headers: headers(extra), credentials: "same-origin", cache: "no-store" });
  }

  // show puts a fetched page in place of this one.
  function show(html, url, push) {
    const doc = new DOMParser().parseFromString(html, "text/html");
    document.title = doc.title;
    document.body.replaceWith(document.adoptNode(doc.body));
    if (push) history.pushState(null, "", url);
    else if (url !== location.href) history.replaceState(null, "", url);
    const hash = new URL(url, location.href).hash;
    const target = hash && document.getElementById(decodeURIComponent(hash.slice(1)));
    if (target) target.scrollIntoView();
    else if (push) window.scrollTo(0, 0);
    ready();
  }

  let navigation = 0;
  async function navigate(url, push) {
    const n = ++navigation;
    let r, html;
    try {
      r = await get(url);
      html = await r.text();
    } catch (e) {
      return;
    }
    if (n !== navigation) return;
    if (r.headers.get("X-Skillstore-Refused")) sessionStorage.removeItem(KEY); // refused: the sign-in page asks again
    show(html, url, push);
  }

  // Images the server asks a token for are fetched with it.
  async function loadImages() {
    for (const img of document.querySelectorAll("img[data-src]")) {
      const src = img.dataset.src;
      img.removeAttribute("data-src");
      try {
        const r = await get(src);
        if (r.ok) img.src = URL.createObjectURL(await r.blob());
      } catch (e) { /* the alternative text stays */ }
    }
  }

  async function download(a) {
    let r;
    try { r = await get(a.href); } catch (e) { return; }
    if (!r.ok || r.headers.get("X-Skillstore-Refused")) { navigate(a.href, true); return; }
    const url = URL.createObjectURL(await r.blob());
    const tmp = document.createElement("a");
    tmp.href = url;
    tmp.download = a.getAttribute("download") || "";
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
      if (n !== searching || !r.ok) return;
      const results = document.getElementById("results");
      if (!results) return;
      const doc = new DOMParser().parseFromString("<div id=\"results\">" + html + "</div>", "text/html");
      results.replaceWith(document.adoptNode(doc.getElementById("results")));
      history.replaceState(null, "", url);
      document.title = (q ? "Search: " + q : "Skills") + " · skillstore";
    }, 120);
  }

  function ready() {
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
    if (url.protocol !== location.protocol || url.origin !== location.origin || url.pathname.startsWith("/assets/")) return; // a blob: download, another site
    if (url.pathname === location.pathname && url.search === location.search && url.hash) return; // an anchor on this page
    e.preventDefault();
    if (a.hasAttribute("download")) download(a);
    else navigate(url.href, true);
  });

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!tokenMode() || form.id === "signin-form" || form.method.toLowerCase() !== "get") return;
    e.preventDefault();
    const url = new URL(form.action, location.href);
    url.search = new URLSearchParams(new FormData(form)).toString();
    navigate(url.href, true);
  });

  window.addEventListener("popstate", () => { if (tokenMode()) navigate(location.href, false); });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
