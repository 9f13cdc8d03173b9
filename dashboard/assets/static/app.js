// speedmatrix serve: the page's only script. No network access: it
// reads the page, keeps the Runs selection in the URL, shows exact
// values on hover and toggles Landscape series.
(function () {
  "use strict";
  // Hover: any SVG element with a <title> child (Landscape points, and
  // report chart elements that carry one) shows it in a tooltip.
  var tip = document.createElement("div");
  tip.id = "sm-tip";
  tip.setAttribute("role", "tooltip");
  document.body.appendChild(tip);
  document.addEventListener("mouseover", function (e) {
    var t = e.target;
    var title = t && t.querySelector ? t.querySelector(":scope > title") : null;
    if (!title) { tip.style.display = "none"; return; }
    tip.textContent = title.textContent;
    tip.style.display = "block";
  });
  document.addEventListener("mousemove", function (e) {
    tip.style.left = (e.clientX + 14) + "px";
    tip.style.top = (e.clientY + 14) + "px";
  });
  // Runs: a checkbox updates the URL's sel= at once, so a reload or a
  // copied link keeps the selection.
  var form = document.getElementById("runs");
  if (form) {
    form.addEventListener("change", function (e) {
      if (e.target.name !== "sel") return;
      var u = new URL(window.location.href);
      var sel = u.searchParams.getAll("sel").filter(function (id) { return id !== e.target.value; });
      if (e.target.checked) sel.push(e.target.value);
      u.searchParams.delete("sel");
      sel.forEach(function (id) { u.searchParams.append("sel", id); });
      window.history.replaceState(null, "", u.pathname + "?" + u.searchParams.toString());
      e.target.closest("tr").classList.toggle("sel", e.target.checked);
    });
  }
  // Landscape: a legend entry hides or shows its points.
  document.querySelectorAll(".legend li[data-g]").forEach(function (li) {
    function toggle() {
      var off = li.classList.toggle("off");
      document.querySelectorAll('#landscape a.pt[data-g="' + li.dataset.g + '"]').forEach(function (a) {
        a.style.display = off ? "none" : "";
      });
    }
    li.addEventListener("click", toggle);
    li.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
  });
})();
