// My designs: the Compare button is enabled for two to eight ticked designs.
(function () {
  const form = document.getElementById("designs-form"), button = document.getElementById("compare-chosen");
  if (!button) return;
  const update = () => {
    const n = form.querySelectorAll("input[name=d]:checked").length;
    button.disabled = n < 2 || n > 8;
    button.title = n < 2 ? "Tick two to eight designs to compare them" : n > 8 ? "At most eight designs at once" : `Compare ${n} designs`;
  };
  form.addEventListener("change", update);
  update();
})();
