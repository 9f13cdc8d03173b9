// speedmatrix serve: the page's only script. No network access: it
// reads the page, keeps the Runs selection in the URL, shows exact
// values on hover and toggles the series of Landscape and of the report's
// charts.
(function () {
  "use strict";
  // Hover: any SVG element with a <title> child (Landscape points, and
  // report chart elements that carry one) shows it in a tooltip.
  var tip = document.createElement("div");
  tip.id = "sm-tip";
  tip.setAttribute("role", "tooltip");
  document.body.appendChild(tip);
  document.addEventListener("mouseover", function (e) {
    // The element's own <title>, else its nearest group's (a report
    // chart's point is a circle in a <g> whose title gives its value).
    var title = null;
    for (var t = e.target; t && t.querySelector && !title; t = t.parentNode) {
      title = t.querySelector(":scope > title");
      if (t.tagName && t.tagName.toLowerCase() === "svg") break;
    }
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
  // Report charts (package plots): a legend entry's thumbnail hides or
  // shows the series it names (data-sm-toggle="g1" → data-sm~="g1").
  document.querySelectorAll("svg [data-sm-toggle]").forEach(function (g) {
    g.style.cursor = "pointer";
    g.addEventListener("click", function () {
      var key = g.getAttribute("data-sm-toggle");
      var off = g.classList.toggle("sm-off");
      g.style.opacity = off ? "0.3" : "";
      g.closest("svg").querySelectorAll('[data-sm~="' + key + '"]').forEach(function (s) {
        s.style.display = off ? "none" : "";
      });
    });
  });
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
