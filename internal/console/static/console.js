// webacq console: copy buttons, and a tidy address bar. Everything else
// works without scripts.
"use strict";
document.addEventListener("click", function (e) {
  var b = e.target.closest("button[data-copy]");
  if (!b) return;
  var field = document.getElementById(b.getAttribute("data-copy"));
  if (!field) return;
  var done = function () {
    var was = b.textContent;
    b.textContent = "Copied";
    setTimeout(function () { b.textContent = was; }, 2000);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(done, function () { field.select(); });
  } else {
    field.select();
    if (document.execCommand && document.execCommand("copy")) done();
  }
});
// A message after a change (?ok=…) is shown once: a reload does not repeat it.
(function () {
  var u = new URL(window.location.href);
  if (u.searchParams.has("ok")) {
    u.searchParams.delete("ok");
    history.replaceState(null, "", u.pathname + u.search + u.hash);
  }
})();
