/* The book's page behaviour (loaded on every page, after the theme). Without JavaScript the page still works:
   wide tables and outputs scroll inside their box (CSS); this script adds what CSS alone cannot:
   1. a visible cue (a fading edge and an arrow) on every box that has more to show to the left or right;
   2. every table of the article inside such a box, and numeric columns right-aligned;
   3. on a phone, wide figures keep a readable size: they scroll sideways in their box instead of shrinking to
      the screen, and a tap opens the full-size image. */
(function () {
  "use strict";
  var PHONE_PX = 640;        // narrower windows count as phones
  var PHONE_FIGURE_PX = 600; // the width a multi-panel figure keeps on a phone (its text stays >= ~8 px)
  var NUMBER = /^[\u2212+\-]?(\d[\d,\u2009\u202f ]*)?(\.\d+)?(\s?(%|\u00d7\s?10[\u207b\u2070-\u2079\u00b9\u00b2\u00b3]+))?$/;
  var BLANK = /^(\u2014|\u2013|-|)$/;
  var SCROLLERS = ".cell_output .output, .pst-scrollable-table-container, .ldp-scroll";

  function article() {
    return document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  }

  function scrollsSideways(el) {
    var s = getComputedStyle(el);
    return s.overflowX === "auto" || s.overflowX === "scroll";
  }

  function inScroller(el, root) {
    for (var p = el.parentElement; p && p !== root; p = p.parentElement) {
      if (scrollsSideways(p)) return true;
    }
    return false;
  }

  function wrap(el, cls) {
    var box = document.createElement("div");
    box.className = cls;
    el.parentNode.insertBefore(box, el);
    box.appendChild(el);
    return box;
  }

  // 1. the cue: the frame around a scrolling box shows which side has more
  function frame(box) {
    if (box.parentElement && box.parentElement.classList.contains("ldp-scroll-frame")) return;
    var outer = wrap(box, "ldp-scroll-frame");
    var update = function () {
      var more = box.scrollWidth - box.clientWidth;
      outer.classList.toggle("ldp-more-right", more > 1 && box.scrollLeft < more - 1);
      outer.classList.toggle("ldp-more-left", more > 1 && box.scrollLeft > 1);
    };
    box.addEventListener("scroll", update, {passive: true});
    window.addEventListener("resize", update);
    update();
  }

  // 2. tables: in a box that scrolls, numbers right-aligned (claims tables and the scoreboard style themselves)
  function alignNumbers(table) {
    if (table.closest(".ldp-claims, .dataTable, .dt-container")) return;
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr"));
    var numeric = {};
    rows.forEach(function (tr) {
      Array.prototype.forEach.call(tr.children, function (cell, i) {
        var text = cell.textContent.trim();
        if (cell.tagName !== "TD" || BLANK.test(text)) return;
        var ok = NUMBER.test(text);
        numeric[i] = (numeric[i] === undefined ? true : numeric[i]) && ok;
      });
    });
    table.querySelectorAll("tr").forEach(function (tr) {
      Array.prototype.forEach.call(tr.children, function (cell, i) {
        if (numeric[i]) cell.classList.add("ldp-num");
      });
    });
  }

  // 3. phone figures
  function phoneFigures(root) {
    var phone = window.innerWidth < PHONE_PX;
    root.querySelectorAll("figure img, .cell_output img").forEach(function (img) {
      var apply = function () {
        var box = img.closest(".ldp-figure-scroll");
        var column = (box || img.parentElement).parentElement.clientWidth;
        var wide = phone && img.naturalWidth > 1.3 * column;
        img.style.width = wide ? Math.min(img.naturalWidth, PHONE_FIGURE_PX) + "px" : "";
        img.style.maxWidth = wide ? "none" : "";
        if (wide && !img.closest(".ldp-figure-link")) {
          var link = wrap(img, "ldp-figure-link");
          link.title = "Open the full-size figure";
          link.addEventListener("click", function () { window.open(img.currentSrc || img.src, "_blank"); });
        }
        if (wide && !box) {
          box = wrap(img.closest(".ldp-figure-link"), "ldp-figure-scroll ldp-scroll");
          frame(box);
        }
        if (box) {
          box.classList.toggle("ldp-phone-wide", wide);
          box.dispatchEvent(new Event("scroll"));
        }
      };
      if (img.complete) apply(); else img.addEventListener("load", apply);
    });
  }

  function init() {
    var root = article();
    root.querySelectorAll("table").forEach(function (table) {
      alignNumbers(table);
      if (!inScroller(table, root) && !table.closest(".dt-container")) wrap(table, "ldp-scroll");
    });
    phoneFigures(root);
    root.querySelectorAll(SCROLLERS).forEach(function (box) {
      if (box.querySelector("table") || box.classList.contains("ldp-scroll")) frame(box);
    });
    // any other box a table scrolls in (the claims tables' own wrapper, the scoreboard's) gets the cue too
    root.querySelectorAll("table").forEach(function (table) {
      if (table.closest(".dt-container")) return;  // DataTables manages its own scrolling
      for (var p = table.parentElement; p && p !== root; p = p.parentElement) {
        if (scrollsSideways(p)) { frame(p); break; }
      }
    });
    document.documentElement.classList.add("ldp-js");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
