// Replies without a page reload: post the move form with fetch and put the returned game panel in
// place of the old one. Without JavaScript the same form posts normally and the page reloads.
document.addEventListener("submit", async (event) => {
  const form = event.target.closest("form[data-live]");
  if (!form) return;
  event.preventDefault();
  const body = new URLSearchParams(new FormData(form, event.submitter));
  form.querySelectorAll("button, textarea").forEach((el) => { el.disabled = true; });
  form.querySelector(".waiting").hidden = false;
  const response = await fetch(form.action, {method: "POST", body, headers: {"X-Arena-Fetch": "1"}});
  if (!response.headers.get("X-Arena-Fragment")) { window.location.reload(); return; }
  document.querySelector("#game").outerHTML = await response.text();
  const box = document.querySelector("#game textarea");
  if (box) box.focus();
});
