// SPDX-License-Identifier: MIT
// The bearer token, asked for once when the server answers 401 and kept in sessionStorage:
// it lives as long as the tab, and never in a URL, a cookie or localStorage.

const KEY = "gpumeter.token";
let pending = null;  // one prompt for every request that was refused meanwhile

export function storedToken() {
  return sessionStorage.getItem(KEY);
}

export function forgetToken() {
  sessionStorage.removeItem(KEY);
}

// Resolves with the token the user typed (and stores it). `refused`: a stored token was just
// refused, so the dialog says so.
export function askForToken(refused) {
  if (!pending) {
    pending = prompt(refused).finally(() => { pending = null; });
  }
  return pending;
}

function prompt(refused) {
  const dialog = document.getElementById("token-dialog");
  const form = document.getElementById("token-form");
  const input = document.getElementById("token-input");
  document.getElementById("token-error").hidden = !refused;
  // Without the token the page can show nothing: Escape does not close the dialog.
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  return new Promise((resolve) => {
    form.addEventListener("submit", () => {
      const token = input.value.trim();
      input.value = "";
      sessionStorage.setItem(KEY, token);
      resolve(token);
    }, {once: true});
    dialog.showModal();
    input.focus();
  });
}
