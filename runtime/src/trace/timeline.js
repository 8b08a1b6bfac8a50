// Spread's trace page (runtime/src/trace/html.rs writes the data): one row per device on a
// canvas; kept operations as boxes, elsewhere stacked busy fractions; wheel zooms, drag pans,
// hover explains. No external resources.
(function () {
  "use strict";
  var T = JSON.parse(document.getElementById("trace-data").textContent);
  var COLORS = ["#4a7fd0", "#3aa655", "#e08a2c", "#999999"];
  var KINDS = ["kernels", "copies to the device", "copies from it", "other copies"];
  var LABEL_W = 90, RIGHT = 12, TOP = 30, ROW = 28, PAD = 3;
  var canvas = document.getElementById("tl");
  var ctx = canvas.getContext("2d");
  var tip = document.getElementById("tip");
  var bar = document.getElementById("bar");
  var ev = T.ev, n = ev.length / 6;
  var end = Math.max(T.end, 1);
  var agg = null, slices = 0, sliceUs = 1;
  if (T.agg) {
    var bin = atob(T.agg.data);
    agg = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) agg[i] = bin.charCodeAt(i);
    slices = T.agg.slices;
    sliceUs = end / slices;
  }
  var view = { t0: 0, t1: end };
  var width = 600;

  function plotW() { return width - LABEL_W - RIGHT; }
  function xOf(t) { return LABEL_W + (t - view.t0) * plotW() / (view.t1 - view.t0); }
  function tOf(x) { return view.t0 + (x - LABEL_W) * (view.t1 - view.t0) / plotW(); }

  function niceStep(x) {
    if (!(x > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log(x) / Math.LN10));
    var m = [1, 2, 5, 10];
    for (var i = 0; i < m.length; i++) if (m[i] * p >= x) return m[i] * p;
    return 10 * p;
  }
  function ms(us) {
    var v = us / 1000, digits = 3;
    var span = (view.t1 - view.t0) / 1000;
    if (span < 0.1) digits = 5;
    else if (span < 1) digits = 4;
    return (+v.toFixed(digits)).toString() + " ms";
  }
  function inWindow(a, b) {
    if (!agg) return true;
    for (var i = 0; i < T.windows.length; i++) {
      var w = T.windows[i];
      if (a >= w[0] && b <= w[1]) return true;
    }
    return false;
  }

  // Busy fraction (0-1) of each kind on `row` over [a, b) microseconds.
  function fractions(row, a, b) {
    var s0 = Math.max(0, Math.floor(a / sliceUs));
    var s1 = Math.min(slices, Math.max(s0 + 1, Math.ceil(b / sliceUs)));
    var f = [0, 0, 0, 0];
    if (s0 >= slices) return f;
    for (var s = s0; s < s1; s++) {
      var base = (row * slices + s) * 4;
      for (var k = 0; k < 4; k++) f[k] += agg[base + k];
    }
    for (var k2 = 0; k2 < 4; k2++) f[k2] /= 255 * (s1 - s0);
    return f;
  }

  function draw() {
    var h = TOP + ROW * T.rows.length + 10;
    ctx.clearRect(0, 0, width, h);
    ctx.font = "12px sans-serif";
    ctx.textBaseline = "alphabetic";
    // Windows in which every operation is shown (a long run only).
    if (agg) {
      ctx.fillStyle = "#fff6d5";
      for (var w = 0; w < T.windows.length; w++) {
        var a = Math.max(LABEL_W, xOf(T.windows[w][0]));
        var b = Math.min(width - RIGHT, xOf(T.windows[w][1]));
        if (b > a) ctx.fillRect(a, TOP - 4, Math.max(1, b - a), h - TOP);
      }
    }
    // Time axis: about ten ticks.
    var step = niceStep((view.t1 - view.t0) / 10);
    ctx.fillStyle = "#000";
    ctx.strokeStyle = "#e4e4e4";
    for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      var x = xOf(t);
      ctx.beginPath();
      ctx.moveTo(x + 0.5, TOP - 5);
      ctx.lineTo(x + 0.5, h);
      ctx.stroke();
      var text = ms(t);
      if (x + 2 + ctx.measureText(text).width <= width) ctx.fillText(text, x + 2, TOP - 10);
    }
    // Rows.
    for (var r = 0; r < T.rows.length; r++) {
      var y = TOP + ROW * r;
      ctx.fillStyle = "#000";
      ctx.fillText(T.rows[r], 4, y + ROW * 0.65);
      ctx.strokeStyle = "#f0f0f0";
      ctx.beginPath();
      ctx.moveTo(LABEL_W, y + ROW + 0.5);
      ctx.lineTo(width - RIGHT, y + ROW + 0.5);
      ctx.stroke();
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, plotW(), h);
    ctx.clip();
    // Busy fractions where operations were left out: stacked bars, one per pixel.
    if (agg) {
      var inner = ROW - 2 * PAD;
      for (var px = LABEL_W; px < width - RIGHT; px++) {
        var ta = tOf(px), tb = tOf(px + 1);
        if (tb <= 0 || ta >= end || inWindow(ta, tb)) continue;
        for (var r2 = 0; r2 < T.rows.length; r2++) {
          var f = fractions(r2, Math.max(0, ta), Math.min(end, tb));
          var bottom = TOP + ROW * r2 + ROW - PAD;
          for (var k = 0; k < 4; k++) {
            if (f[k] <= 0) continue;
            var hk = Math.min(inner, Math.max(1, f[k] * inner));
            ctx.fillStyle = COLORS[k];
            ctx.fillRect(px, bottom - hk, 1, hk);
            bottom -= hk;
            if (bottom <= TOP + ROW * r2 + PAD) break;
          }
        }
      }
    }
    // Operations kept.
    var scale = plotW() / (view.t1 - view.t0);
    for (var e = 0; e < n; e++) {
      var o = e * 6, ts = ev[o + 2], dur = ev[o + 3];
      if (ts + dur < view.t0 || ts > view.t1) continue;
      ctx.fillStyle = COLORS[ev[o + 1]] || COLORS[3];
      ctx.fillRect(xOf(ts), TOP + ROW * ev[o] + PAD, Math.max(0.5, dur * scale), ROW - 2 * PAD);
    }
    ctx.restore();
  }

  function resize() {
    width = Math.max(400, document.getElementById("wrap").clientWidth);
    var h = TOP + ROW * T.rows.length + 10;
    var ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(h * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = h + "px";
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    draw();
  }

  function setView(t0, t1) {
    var span = Math.min(end, Math.max(1, t1 - t0));
    t0 = Math.max(0, Math.min(t0, end - span));
    view.t0 = t0;
    view.t1 = t0 + span;
    draw();
  }
  function zoom(factor, at) {
    var t = at === undefined ? (view.t0 + view.t1) / 2 : at;
    setView(t - (t - view.t0) * factor, t + (view.t1 - t) * factor);
  }

  function button(text, action) {
    var b = document.createElement("button");
    b.textContent = text;
    b.onclick = action;
    bar.appendChild(b);
  }
  button("whole run", function () { setView(0, end); });
  button("zoom in", function () { zoom(0.25); });
  button("zoom out", function () { zoom(4); });
  if (agg) {
    T.windows.forEach(function (w) {
      button("show " + w[2], function () {
        var margin = (w[1] - w[0]) * 0.02 + 1;
        setView(w[0] - margin, w[1] + margin);
      });
    });
  }

  // What is under the mouse: an operation kept, or a row's busy fractions.
  function describe(mx, my) {
    var row = Math.floor((my - TOP) / ROW);
    if (mx < LABEL_W || row < 0 || row >= T.rows.length) return null;
    var t = tOf(mx), best = -1, bestDist = 3;
    for (var e = 0; e < n; e++) {
      var o = e * 6;
      if (ev[o] !== row) continue;
      var x0 = xOf(ev[o + 2]), x1 = xOf(ev[o + 2] + ev[o + 3]);
      var d = mx < x0 ? x0 - mx : (mx > x1 ? mx - x1 : 0);
      if (d < bestDist) { best = e; bestDist = d; }
    }
    if (best >= 0) {
      var p = best * 6, label = ev[p + 5] >= 0 ? " (" + T.labels[ev[p + 5]] + ")" : "";
      return T.rows[row] + ": " + T.names[ev[p + 4]] + label + "\n" +
        ev[p + 3].toFixed(1) + " us at " + (ev[p + 2] / 1000).toFixed(3) + " ms";
    }
    if (!agg || t < 0 || t > end || inWindow(tOf(mx), tOf(mx + 1))) return null;
    var f = fractions(row, Math.max(0, tOf(mx)), Math.min(end, tOf(mx + 1)));
    var lines = [T.rows[row] + ", " + ms(tOf(mx)) + " to " + ms(tOf(mx + 1)) + ": busy"];
    for (var k = 0; k < 4; k++) {
      if (f[k] > 0) lines.push("  " + KINDS[k] + " " + (100 * f[k]).toFixed(1) + "% of the time");
    }
    if (lines.length === 1) lines[0] += ": idle";
    lines.push("(zoom into a shaded window to see each operation)");
    return lines.join("\n");
  }

  var drag = null;
  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    var r = canvas.getBoundingClientRect();
    zoom(Math.exp(e.deltaY * 0.002), tOf(e.clientX - r.left));
  }, { passive: false });
  canvas.addEventListener("mousedown", function (e) {
    drag = { x: e.clientX, t0: view.t0, t1: view.t1 };
    canvas.style.cursor = "grabbing";
  });
  window.addEventListener("mouseup", function () {
    drag = null;
    canvas.style.cursor = "grab";
  });
  canvas.addEventListener("dblclick", function (e) {
    var r = canvas.getBoundingClientRect();
    zoom(0.25, tOf(e.clientX - r.left));
  });
  canvas.addEventListener("mousemove", function (e) {
    var r = canvas.getBoundingClientRect();
    if (drag) {
      var dt = (e.clientX - drag.x) * (drag.t1 - drag.t0) / plotW();
      setView(drag.t0 - dt, drag.t1 - dt);
      tip.style.display = "none";
      return;
    }
    var text = describe(e.clientX - r.left, e.clientY - r.top);
    if (!text) {
      tip.style.display = "none";
      return;
    }
    tip.textContent = text;
    tip.style.display = "block";
    tip.style.left = (e.clientX + 14) + "px";
    tip.style.top = (e.clientY + 14) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  window.addEventListener("resize", resize);
  // FILE.html#A-B opens on milliseconds A to B.
  var from = /^#([0-9.]+)-([0-9.]+)$/.exec(window.location.hash);
  if (from) {
    view.t0 = Math.max(0, 1000 * parseFloat(from[1]));
    view.t1 = Math.min(end, Math.max(view.t0 + 1, 1000 * parseFloat(from[2])));
  }
  resize();
})();
