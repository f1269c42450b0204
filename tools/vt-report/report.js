// SPDX-License-Identifier: BSD-3-Clause
// vt-report's page script: draws everything from the JSON in #vt-data. No library, no network.
'use strict';
(function () {
  var started = performance.now();
  var errorBox = document.getElementById('errors');
  function showError(text) {
    errorBox.textContent += text + '\n';
  }
  window.addEventListener('error', function (e) {
    showError('error: ' + e.message + ' (' + e.filename + ':' + e.lineno + ')');
  });

  var D = JSON.parse(document.getElementById('vt-data').textContent);
  var M = D.meta;
  var RES = M.resolution || 1;
  var SVGNS = 'http://www.w3.org/2000/svg';

  // ---- formatting ----
  function fmtNs(ns) {
    var s = ns / 1e9;
    if (s >= 1) return s.toFixed(3) + ' s';
    if (s >= 1e-3) return (s * 1e3).toFixed(3) + ' ms';
    if (s >= 1e-6) return (s * 1e6).toFixed(3) + ' us';
    return Math.round(s * 1e9) + ' ns';
  }
  function fmtTicks(t) {
    return fmtNs(t * 1e9 / RES);
  }
  function fmtBytes(b) {
    if (b >= 1 << 30) return (b / (1 << 30)).toFixed(1) + ' GiB';
    if (b >= 1 << 20) return (b / (1 << 20)).toFixed(1) + ' MiB';
    if (b >= 1 << 10) return (b / (1 << 10)).toFixed(1) + ' KiB';
    return b + ' B';
  }
  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;');
  }
  function regionName(r) {
    return D.regions[r] ? D.regions[r][0] : 'region ' + r;
  }
  // OTF2 region roles the timeline draws in their own way (the thread model).
  var ROLE_PARALLEL = 5, ROLE_BARRIER = 15, ROLE_IMPLICIT_BARRIER = 16, ROLE_TASK = 20,
    ROLE_TASK_UNTIED = 34;
  function roleOf(r) {
    return D.regions[r] ? D.regions[r][2] : 0;
  }
  function roleClass(r) {
    var role = roleOf(r);
    if (role === ROLE_BARRIER || role === ROLE_IMPLICIT_BARRIER) return ' barrier';
    if (role === ROLE_TASK || role === ROLE_TASK_UNTIED) return ' task';
    if (role === ROLE_PARALLEL) return ' parallel';
    return '';
  }
  var colors = {};
  function color(r) {
    if (colors[r] === undefined && roleClass(r) === ' barrier') colors[r] = 'hsl(0,0%,66%)';
    if (colors[r] === undefined) {
      var name = regionName(r), h = 0;
      for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
      var mpi = D.regions[r] && D.regions[r][1] === 4;
      colors[r] = mpi ? 'hsl(' + (h % 40) + ',75%,55%)' :
        'hsl(' + (60 + h % 260) + ',55%,' + (45 + h % 20) + '%)';
    }
    return colors[r];
  }
  function locName(i) {
    var l = D.locations[i];
    return l ? l.group + ' / ' + l.name : 'location ' + i;
  }

  var subtitle = document.getElementById('subtitle');
  subtitle.textContent = M.trace + ': ' + M.locations + ' locations, ' + M.events +
    ' events, ' + fmtNs(M.tmax - M.tmin);

  // ---- timeline ----
  var LABEL = 190, LEVEL = 9, MAXLEV = 6, AXIS = 22;
  var tl = document.getElementById('timeline');
  var rows = D.locations.map(function (l, i) {
    return {loc: i, levels: Math.max(1, Math.min(l.depth || 1, MAXLEV)), slices: [], bins: []};
  });
  var y = AXIS;
  rows.forEach(function (r) {
    r.y = y;
    r.h = r.levels * LEVEL + 4;
    y += r.h;
  });
  var HEIGHT = y + 4;
  D.slices.forEach(function (s, k) {
    if (rows[s[0]]) rows[s[0]].slices.push(k);
  });
  rows.forEach(function (r) {
    r.slices.sort(function (a, b) {
      return D.slices[a][3] - D.slices[b][3];
    });
  });
  D.bins.forEach(function (b, k) {
    if (rows[b[0]]) rows[b[0]].bins.push(k);
  });
  // The thread model's items ([type, location, t0, t1, arg], vt_report.h's VT_REPORT_TH_*):
  // spans and marks on their location's row, flows between rows.
  var TH = {TEAM: 0, LOCK: 1, FORK: 2, JOIN: 3, TASK_CREATE: 4, TASK_COMPLETE: 5, CREATE: 6,
    WAIT: 7, FORK_FLOW: 8, LOCK_FLOW: 9};
  var TH_NAMES = ['team', 'lock-held', 'fork', 'join', 'task-create', 'task-complete',
    'thread-create', 'thread-wait', 'fork', 'lock'];
  var thByRow = rows.map(function () { return []; }), thFlows = [];
  (D.threads || []).forEach(function (x, k) {
    if (x[0] === TH.FORK_FLOW || x[0] === TH.LOCK_FLOW) thFlows.push(k);
    else if (thByRow[x[1]]) thByRow[x[1]].push(k);
  });
  var marksByRow = rows.map(function () { return []; });
  D.marks.forEach(function (m, k) {
    if (marksByRow[m[0]]) marksByRow[m[0]].push(k);
  });

  var full0 = M.tmin, full1 = Math.max(M.tmax, M.tmin + 1);
  var view = {t0: full0, t1: full1};
  function width() {
    return Math.max(600, (tl.clientWidth || document.documentElement.clientWidth - 40));
  }
  var W = width();
  function xOf(t) {
    return LABEL + (t - view.t0) / (view.t1 - view.t0) * (W - LABEL - 4);
  }
  function tOf(x) {
    return view.t0 + (x - LABEL) / (W - LABEL - 4) * (view.t1 - view.t0);
  }
  function levelY(r, depth) {
    return r.y + 2 + Math.min(depth, r.levels - 1) * LEVEL;
  }

  function axis(out, h) {
    var span = view.t1 - view.t0, step = Math.pow(10, Math.floor(Math.log10(span / 8)));
    if (span / step > 16) step *= 5;
    else if (span / step > 8) step *= 2;
    var first = Math.ceil((view.t0 - M.tmin) / step) * step + M.tmin;
    for (var t = first; t <= view.t1; t += step) {
      var x = xOf(t).toFixed(1);
      out.push('<line class="tick" x1="' + x + '" x2="' + x + '" y1="14" y2="' + h + '"/>');
      out.push('<text class="axis" x="' + x + '" y="11">' + esc(fmtNs(t - M.tmin)) + '</text>');
    }
  }

  function drawTimeline() {
    W = width();
    var out = ['<svg xmlns="' + SVGNS + '" width="' + W + '" height="' + HEIGHT + '" id="tl-svg">'];
    rows.forEach(function (r, i) {
      out.push('<g class="row" data-loc="' + r.loc + '"><rect class="rowbg' + (i % 2 ? ' odd' : '') +
        '" x="0" y="' + r.y + '" width="' + W + '" height="' + r.h + '"/><text class="label" x="4" y="' +
        (r.y + Math.min(r.h, 14) - 3) + '">' + esc(locName(r.loc)) + '</text></g>');
    });
    axis(out, HEIGHT);
    var px = (view.t1 - view.t0) / (W - LABEL - 4); // ns per pixel
    rows.forEach(function (r) {
      var dense = {}; // per level: the run of sub-pixel slices being merged
      function flush(level) {
        var d = dense[level];
        if (!d) return;
        out.push('<rect class="dense" data-loc="' + r.loc + '" data-n="' + d.n + '" x="' +
          d.x0.toFixed(1) + '" y="' + levelY(r, level) + '" width="' + Math.max(1, d.x1 - d.x0).toFixed(1) +
          '" height="' + (LEVEL - 1) + '" fill="' + color(d.region) + '"/>');
        dense[level] = null;
      }
      for (var j = 0; j < r.slices.length; j++) {
        var k = r.slices[j], s = D.slices[k];
        if (s[3] > view.t1) break;
        if (s[4] < view.t0) continue;
        var x0 = Math.max(xOf(s[3]), LABEL), x1 = Math.min(xOf(s[4]), W);
        var level = Math.min(s[2], r.levels - 1);
        if ((s[4] - s[3]) / px < 0.5) {
          var d = dense[level];
          if (d && x0 - d.x1 < 1) {
            d.x1 = Math.max(d.x1, x1);
            d.n++;
          } else {
            flush(level);
            dense[level] = {x0: x0, x1: x1, n: 1, region: s[1]};
          }
          continue;
        }
        flush(level);
        out.push('<rect class="slice' + roleClass(s[1]) + '" data-i="' + k + '" data-loc="' + r.loc + '" data-region="' +
          esc(regionName(s[1])) + '" x="' + x0.toFixed(1) + '" y="' + levelY(r, level) +
          '" width="' + Math.max(0.5, x1 - x0).toFixed(1) + '" height="' + (LEVEL - 1) +
          '" fill="' + color(s[1]) + '"/>');
      }
      for (var lv in dense) flush(+lv);
      r.bins.forEach(function (k) {
        var b = D.bins[k], t0 = b[2] * M.bin_ns, t1 = t0 + M.bin_ns;
        if (t1 < view.t0 || t0 > view.t1) return;
        var x0 = Math.max(xOf(t0), LABEL), x1 = Math.min(xOf(t1), W);
        var busy = Math.min(1, b[5] / M.bin_ns);
        out.push('<rect class="bin" data-b="' + k + '" data-loc="' + r.loc + '" data-region="' +
          esc(regionName(b[3])) + '" x="' + x0.toFixed(1) + '" y="' + levelY(r, b[1]) + '" width="' +
          Math.max(0.5, x1 - x0).toFixed(1) + '" height="' + (LEVEL - 1) + '" fill="' + color(b[3]) +
          '" fill-opacity="' + (0.3 + 0.7 * busy).toFixed(2) + '"/>');
      });
      marksByRow[r.loc].forEach(function (k) {
        var m = D.marks[k];
        if (m[3] < view.t0 || m[2] > view.t1) return;
        var x0 = Math.max(xOf(m[2]), LABEL), x1 = Math.min(xOf(m[3]), W);
        out.push('<rect class="coll" data-m="' + k + '" data-loc="' + r.loc + '" data-op="' +
          D.coll_names[m[1]] + '" x="' + x0.toFixed(1) + '" y="' + (r.y + r.h - 3) + '" width="' +
          Math.max(2, x1 - x0).toFixed(1) + '" height="3"/>');
      });
    });
    rows.forEach(function (r) {
      thByRow[r.loc].forEach(function (k) {
        var x = D.threads[k], cls = TH_NAMES[x[0]];
        if (x[3] < view.t0 || x[2] > view.t1) return;
        var x0 = Math.max(xOf(x[2]), LABEL), x1 = Math.min(xOf(x[3]), W);
        var attrs = ' data-th="' + k + '" data-loc="' + r.loc + '"';
        if (x[0] === TH.TEAM || x[0] === TH.LOCK) {
          out.push('<rect class="' + cls + '"' + attrs + ' x="' + x0.toFixed(1) + '" y="' +
            (x[0] === TH.TEAM ? r.y : r.y + r.h - 6) + '" width="' + Math.max(1, x1 - x0).toFixed(1) +
            '" height="' + (x[0] === TH.TEAM ? 2 : 3) + '"/>');
        } else if (x[0] === TH.FORK || x[0] === TH.JOIN) {
          out.push('<line class="' + cls + '"' + attrs + ' x1="' + x0.toFixed(1) + '" x2="' + x0.toFixed(1) +
            '" y1="' + r.y + '" y2="' + (r.y + r.h) + '"/>');
        } else {
          var ty = r.y + 1;
          out.push('<polygon class="' + cls + '"' + attrs + ' points="' + [x0 - 3, ty, x0 + 3, ty, x0, ty + 5]
            .map(function (v) { return v.toFixed(1); }).join(' ').replace(/(\S+) (\S+)( |$)/g, '$1,$2$3') +
            '"/>');
        }
      });
    });
    thFlows.forEach(function (k) {
      var x = D.threads[k], a = rows[x[1]], b = rows[x[4]];
      if (!a || !b || Math.max(x[2], x[3]) < view.t0 || Math.min(x[2], x[3]) > view.t1) return;
      out.push('<line class="tflow ' + TH_NAMES[x[0]] + '-flow" data-th="' + k + '" data-from="' + x[1] +
        '" data-to="' + x[4] + '" x1="' + xOf(x[2]).toFixed(1) + '" y1="' + (a.y + 3).toFixed(1) + '" x2="' +
        xOf(x[3]).toFixed(1) + '" y2="' + (b.y + 3).toFixed(1) + '"/>');
    });
    D.messages.forEach(function (m, k) {
      if (Math.max(m[2], m[3]) < view.t0 || Math.min(m[2], m[3]) > view.t1) return;
      var a = rows[m[0]], b = rows[m[1]];
      if (!a || !b) return;
      out.push('<line class="msg" data-k="' + k + '" data-from="' + m[0] + '" data-to="' + m[1] +
        '" x1="' + xOf(m[2]).toFixed(1) + '" y1="' + (a.y + a.h / 2).toFixed(1) + '" x2="' +
        xOf(m[3]).toFixed(1) + '" y2="' + (b.y + b.h / 2).toFixed(1) + '"/>');
    });
    out.push('</svg>');
    tl.innerHTML = out.join('');
    drawCounters();
    document.getElementById('view').textContent = fmtNs(view.t0 - M.tmin) + ' \u2013 ' +
      fmtNs(view.t1 - M.tmin) + ' (' + fmtNs(view.t1 - view.t0) + ')';
  }

  // ---- counters: one plot per counter name, a line per location ----
  var counterGroups = {};
  D.counters.forEach(function (c, k) {
    (counterGroups[c.name] = counterGroups[c.name] || []).push(k);
  });
  var cdiv = document.getElementById('counters');
  function drawCounters() {
    var out = [], PH = 70;
    Object.keys(counterGroups).sort().forEach(function (name) {
      var ks = counterGroups[name], lo = Infinity, hi = -Infinity;
      ks.forEach(function (k) {
        D.counters[k].points.forEach(function (p) {
          var a = p.length > 2 ? p[2] : p[1], b = p.length > 2 ? p[3] : p[1];
          if (a < lo) lo = a;
          if (b > hi) hi = b;
        });
      });
      if (!(hi >= lo)) return;
      if (hi === lo) hi = lo + 1;
      var unit = D.counters[ks[0]].unit;
      out.push('<svg xmlns="' + SVGNS + '" class="counter" data-name="' + esc(name) + '" width="' + W +
        '" height="' + PH + '"><rect class="rowbg" x="0" y="0" width="' + W + '" height="' + PH +
        '"/><text class="counter-title" x="4" y="14">' + esc(name) + (unit ? ' [' + esc(unit) + ']' : '') +
        '</text><text class="axis" x="4" y="28">' + esc(String(+hi.toPrecision(4))) +
        '</text><text class="axis" x="4" y="' + (PH - 4) + '">' + esc(String(+lo.toPrecision(4))) + '</text>');
      ks.forEach(function (k, n) {
        var c = D.counters[k], pts = [], bars = [];
        c.points.forEach(function (p) {
          if (p[0] < view.t0 || p[0] > view.t1) return;
          var x = xOf(p[0]).toFixed(1);
          var yv = function (v) { return (PH - 4 - (v - lo) / (hi - lo) * (PH - 20)).toFixed(1); };
          pts.push(x + ',' + yv(p[1]));
          if (p.length > 2) bars.push('M' + x + ' ' + yv(p[2]) + 'V' + yv(p[3]));
        });
        var hue = (n * 67) % 360;
        if (pts.length)
          out.push('<polyline class="series" data-loc="' + c.loc + '" fill="none" stroke="hsl(' + hue +
            ',60%,40%)" points="' + pts.join(' ') + '"/>');
        if (bars.length)
          out.push('<path stroke="hsl(' + hue + ',60%,70%)" d="' + bars.join('') + '"/>');
      });
      out.push('</svg>');
    });
    cdiv.innerHTML = out.join('');
  }

  // ---- zoom and pan ----
  function setView(t0, t1) {
    var span = Math.max(t1 - t0, 10);
    var fullSpan = full1 - full0;
    if (span > fullSpan) span = fullSpan;
    if (t0 < full0) t0 = full0;
    if (t0 + span > full1) t0 = full1 - span;
    view.t0 = t0;
    view.t1 = t0 + span;
    drawTimeline();
  }
  function zoom(factor, atX) {
    var at = atX === undefined ? (view.t0 + view.t1) / 2 : tOf(atX);
    setView(at - (at - view.t0) * factor, at + (view.t1 - at) * factor);
  }
  function pan(fraction) {
    var d = (view.t1 - view.t0) * fraction;
    setView(view.t0 + d, view.t1 + d);
  }
  var controls = document.getElementById('controls');
  controls.innerHTML = '<button id="zin">+</button><button id="zout">\u2212</button>' +
    '<button id="left">\u2190</button><button id="right">\u2192</button><button id="reset">all</button> ' +
    'view: <span id="view"></span> \u2014 wheel or +/\u2212 to zoom, drag or \u2190/\u2192 to pan, 0 for all' +
    (M.aggregated ? '; short regions are shown as bins of ' + esc(fmtNs(M.bin_ns)) +
      ' (lighter: less busy), longer ones one by one' : '') +
    (M.messages_left_out ? '; ' + M.messages_left_out + ' messages not drawn' : '') +
    (M.threads_left_out ? '; ' + M.threads_left_out + ' thread spans, marks and flows not drawn' : '');
  document.getElementById('zin').onclick = function () { zoom(0.5); };
  document.getElementById('zout').onclick = function () { zoom(2); };
  document.getElementById('left').onclick = function () { pan(-0.25); };
  document.getElementById('right').onclick = function () { pan(0.25); };
  document.getElementById('reset').onclick = function () { setView(full0, full1); };
  tl.addEventListener('wheel', function (e) {
    e.preventDefault();
    var rect = tl.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 0.8 : 1.25, e.clientX - rect.left);
  }, {passive: false});
  var drag = null;
  tl.addEventListener('mousedown', function (e) {
    drag = {x: e.clientX, t0: view.t0, t1: view.t1};
    tl.classList.add('dragging');
  });
  window.addEventListener('mouseup', function () {
    drag = null;
    tl.classList.remove('dragging');
  });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var dt = (e.clientX - drag.x) / (W - LABEL - 4) * (drag.t1 - drag.t0);
    if (Math.abs(e.clientX - drag.x) > 2) setView(drag.t0 - dt, drag.t1 - dt);
  });
  window.addEventListener('keydown', function (e) {
    if (e.target && /INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) return;
    if (e.key === '+' || e.key === '=') zoom(0.5);
    else if (e.key === '-' || e.key === '_') zoom(2);
    else if (e.key === 'ArrowLeft') pan(-0.25);
    else if (e.key === 'ArrowRight') pan(0.25);
    else if (e.key === '0' || e.key === 'Home') setView(full0, full1);
    else return;
    e.preventDefault();
  });

  // ---- tooltip ----
  var tip = document.getElementById('tooltip');
  function tipText(t) {
    var d = t.dataset || {};
    if (d.i !== undefined) {
      var s = D.slices[+d.i];
      return regionName(s[1]) + '\n' + locName(s[0]) + '\nfrom ' + fmtNs(s[3] - M.tmin) + ' to ' +
        fmtNs(s[4] - M.tmin) + '\nduration ' + fmtNs(s[4] - s[3]);
    }
    if (d.b !== undefined) {
      var b = D.bins[+d.b];
      return b[4] + ' short activations (mostly ' + regionName(b[3]) + ')\n' + locName(b[0]) +
        '\nbusy ' + fmtNs(b[5]) + ' of ' + fmtNs(M.bin_ns);
    }
    if (d.k !== undefined) {
      var m = D.messages[+d.k];
      return 'message of ' + m[4] + ' bytes, tag ' + m[5] + '\nfrom ' + locName(m[0]) + ' at ' +
        fmtNs(m[2] - M.tmin) + '\nto ' + locName(m[1]) + ' at ' + fmtNs(m[3] - M.tmin);
    }
    if (d.m !== undefined) {
      var c = D.marks[+d.m];
      return 'collective ' + D.coll_names[c[1]] + '\n' + locName(c[0]) + '\nfrom ' +
        fmtNs(c[2] - M.tmin) + ' to ' + fmtNs(c[3] - M.tmin);
    }
    if (d.th !== undefined) {
      var x = D.threads[+d.th], what = {0: 'in a thread team', 1: 'holding lock ' + x[4],
        2: 'fork (' + x[4] + ' threads requested)', 3: 'join', 4: 'task ' + x[4] + ' created',
        5: 'task ' + x[4] + ' completed', 6: 'thread ' + x[4] + ' created', 7: 'thread ' + x[4] +
        ' waited for', 8: 'fork to ' + locName(x[4]), 9: 'lock handed to ' + locName(x[4])}[x[0]];
      return what + '\n' + locName(x[1]) + '\n' + (x[3] > x[2] ? 'from ' + fmtNs(x[2] - M.tmin) + ' to ' +
        fmtNs(x[3] - M.tmin) + ' (' + fmtNs(x[3] - x[2]) + ')' : 'at ' + fmtNs(x[2] - M.tmin));
    }
    if (d.n !== undefined) return d.n + ' short activations merged at this zoom';
    return null;
  }
  tl.addEventListener('mousemove', function (e) {
    var text = drag ? null : tipText(e.target);
    if (!text) {
      tip.style.display = 'none';
      return;
    }
    tip.textContent = text;
    tip.style.display = 'block';
    tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 300) + 'px';
    tip.style.top = (e.clientY + 12) + 'px';
  });
  tl.addEventListener('mouseleave', function () { tip.style.display = 'none'; });

  // ---- tables ----
  function table(id, head, rowsData) {
    var t = document.getElementById(id), out = ['<thead><tr>'];
    head.forEach(function (h, i) {
      out.push('<th data-col="' + i + '">' + esc(h) + '</th>');
    });
    out.push('</tr></thead><tbody>');
    rowsData.forEach(function (r) {
      out.push('<tr>');
      r.forEach(function (c) {
        if (c && typeof c === 'object')
          out.push('<td class="' + (c.cls || 'num') + '"' + (c.value !== undefined ? ' data-value="' +
            c.value + '"' : '') + (c.attr || '') + '>' + esc(c.text) + '</td>');
        else
          out.push('<td>' + esc(c) + '</td>');
      });
      out.push('</tr>');
    });
    out.push('</tbody>');
    t.innerHTML = out.join('');
  }
  function sortable(t) {
    t.addEventListener('click', function (e) {
      var th = e.target.closest('th');
      if (!th) return;
      var col = +th.dataset.col, body = t.tBodies[0];
      var desc = th.dataset.dir !== 'desc';
      Array.prototype.forEach.call(t.querySelectorAll('th'), function (h) { delete h.dataset.dir; });
      th.dataset.dir = desc ? 'desc' : 'asc';
      var trs = Array.prototype.slice.call(body.rows);
      trs.sort(function (a, b) {
        var x = a.cells[col], y = b.cells[col], c;
        if (x.dataset.value !== undefined) c = +x.dataset.value - +y.dataset.value;
        else c = x.textContent.localeCompare(y.textContent);
        return desc ? -c : c;
      });
      trs.forEach(function (tr) { body.appendChild(tr); });
    });
  }
  function num(v, text) {
    return {value: v, text: text === undefined ? String(v) : text};
  }

  var totalExcl = D.flat.reduce(function (a, f) { return a + f[3]; }, 0);
  table('flat', ['region', 'calls', 'inclusive', 'exclusive', 'excl %'],
    D.flat.slice().sort(function (a, b) { return b[3] - a[3]; }).map(function (f) {
      return [{cls: 'name', text: regionName(f[0]), attr: ' data-region="' + esc(regionName(f[0])) + '"'},
        num(f[1]), num(f[2], fmtTicks(f[2])), num(f[3], fmtTicks(f[3])),
        num(totalExcl ? f[3] / totalExcl * 100 : 0, (totalExcl ? f[3] / totalExcl * 100 : 0).toFixed(2) + '%')];
    }));
  var pathOf = {};
  table('calltree', ['call path', 'calls', 'inclusive', 'exclusive'], D.paths.map(function (p) {
    var path = (p[1] && pathOf[p[1]] ? pathOf[p[1]] + ';' : '') + regionName(p[3]);
    pathOf[p[0]] = path;
    return [{cls: 'path', text: new Array(p[2]).join('  ') + regionName(p[3]),
      attr: ' data-path="' + esc(path) + '"'}, num(p[4]), num(p[5], fmtTicks(p[5])), num(p[6], fmtTicks(p[6]))];
  }));

  // ---- threads: per thread its time in the thread model's constructs; the OpenMP imbalance ----
  if (D.thread_model) {
    table('thread-times', ['location', 'parallel', 'barrier', 'task', 'taskwait', 'critical', 'lock held',
      'pthread', 'tasks created', 'tasks completed', 'locks'], D.thread_model.threads.map(function (x) {
      var cells = [{cls: 'name', text: locName(x[0]), attr: ' data-loc="' + x[0] + '"'}];
      for (var i = 1; i <= 7; i++) cells.push(num(x[i], fmtTicks(x[i])));
      return cells.concat([num(x[8]), num(x[9]), num(x[10])]);
    }));
    table('omp-imbalance', ['region', 'kind', 'threads', 'max', 'mean', 'max/mean', 'max\u2212mean', 'per thread'],
      D.thread_model.constructs.slice().sort(function (a, b) { return b.excess - a.excess; }).map(function (c) {
        return [{cls: 'name', text: regionName(c.region), attr: ' data-region="' + esc(regionName(c.region)) + '"'},
          {cls: 'name', text: c.kind === 'parallel' ? 'parallel (work)' : 'barrier (waiting)', attr: ' data-kind="' +
            c.kind + '"'}, num(c.per.length), num(c.max, fmtTicks(c.max)), num(c.mean, fmtTicks(c.mean)),
          num(c.ratio, c.ratio.toFixed(3)), num(c.excess, fmtTicks(c.excess)),
          {cls: 'name', text: c.per.map(function (p) { return locName(p[0]) + ': ' + fmtTicks(p[2]); }).join(', ')}];
      }));
  }

  // ---- I/O: per file, per file and process, request sizes, the slowest operations ----
  (function () {
    var IO = D.io, sum = document.getElementById('io-summary');
    if (!IO) {
      sum.innerHTML = '<p class="note" id="io-none">No I/O event in the trace (recorded with VT_IOTRACE=yes).</p>';
      return;
    }
    // x[k..k+8]: reads, writes, flushes, failed, opens, seeks, bytes read, bytes written, ticks
    function figures(x, k) {
      return [num(x[k]), num(x[k + 1]), num(x[k + 2]), num(x[k + 3]), num(x[k + 4]), num(x[k + 5]),
        num(x[k + 6]), num(x[k + 7]), num(x[k + 8], fmtTicks(x[k + 8]))];
    }
    var head = ['reads', 'writes', 'flushes', 'failed', 'opens', 'seeks', 'bytes read', 'bytes written',
      'time in I/O'];
    var A = IO.all, ops = A[2] + A[3] + A[4] + A[5], rd = A[8], wr = A[9], time = A[10];
    var left = IO.files_total - IO.files.length, leftRows = IO.rows_total - IO.rows.length;
    sum.innerHTML = '<p id="io-total">' + ops + ' operations on ' + IO.files_total + ' file' +
      (IO.files_total === 1 ? '' : 's') + ': ' + rd + ' bytes read (' + esc(fmtBytes(rd)) + '), ' + wr +
      ' bytes written (' + esc(fmtBytes(wr)) + '), ' + esc(fmtTicks(time)) + ' in I/O operations.</p>' +
      (left || leftRows ? '<p class="note" id="io-left-out">Shown: the ' + IO.files.length + ' of ' +
        IO.files_total + ' files and ' + IO.rows.length + ' of ' + IO.rows_total + ' file and process rows ' +
        'with the most time in I/O; vt-profile --io lists all.</p>' : '');
    function fileCells(f) {
      return [{cls: 'name', text: f[0], attr: ' data-paradigm="' + esc(f[0]) + '"'},
        {cls: 'name', text: f[1], attr: ' data-file="' + esc(f[1]) + '"'}];
    }
    table('io-files', ['paradigm', 'file'].concat(head), IO.files.map(function (f) {
      return fileCells(f).concat(figures(f, 2));
    }));
    table('io-rows', ['paradigm', 'file', 'rank', 'process'].concat(head), IO.rows.map(function (x) {
      return fileCells(IO.files[x[0]]).concat([x[1] === null ? {cls: 'name', text: '\u2013'} : num(x[1]),
        {cls: 'name', text: x[2], attr: ' data-process="' + esc(x[2]) + '"'}], figures(x, 3));
    }));
    // request sizes: per file a bar per power-of-two bucket, reads and writes apart
    var out = [], BW = 44, H = 90;
    IO.sizes.forEach(function (list, f) {
      if (!list.length) return;
      var maxN = 1;
      list.forEach(function (b) { maxN = Math.max(maxN, b[2]); });
      out.push('<div class="io-file-sizes"><div>' + esc(IO.files[f][0] + ' ' + IO.files[f][1]) + '</div>');
      out.push('<svg xmlns="' + SVGNS + '" class="io-sizes" data-file="' + esc(IO.files[f][1]) + '" data-paradigm="' +
        esc(IO.files[f][0]) + '" width="' + (list.length * (BW + 6) + 10) + '" height="' + (H + 44) + '">');
      list.forEach(function (b, i) {
        var h = b[2] / maxN * H, x = 5 + i * (BW + 6), mode = IO.modes[b[0]];
        var label = b[1] === 0 ? '0 B' : fmtBytes(b[1]) + '+';
        out.push('<rect class="io-size-bar ' + mode + '" data-mode="' + mode + '" data-low="' + b[1] +
          '" data-count="' + b[2] + '" x="' + x + '" y="' + (H - h + 2).toFixed(1) + '" width="' + BW +
          '" height="' + h.toFixed(1) + '"/>');
        out.push('<text class="axis" x="' + x + '" y="' + (H + 14) + '">' + esc(mode) + '</text>');
        out.push('<text class="axis" x="' + x + '" y="' + (H + 26) + '">' + esc(label) + '</text>');
        out.push('<text class="axis" x="' + x + '" y="' + (H + 38) + '">' + b[2] + '</text>');
      });
      out.push('</svg></div>');
    });
    document.getElementById('io-sizes').innerHTML = out.join('');
    // [paradigm, file, rank, process, location, mode, requested, done, ticks, begin ns]
    table('io-slowest', ['time', 'rank', 'process', 'location', 'op', 'requested', 'done', 'paradigm', 'file',
      'began at'], IO.slowest.map(function (o) {
      return [num(o[8], fmtTicks(o[8])), o[2] === null ? {cls: 'name', text: '\u2013'} : num(o[2]),
        {cls: 'name', text: o[3]}, {cls: 'name', text: locName(o[4])},
        {cls: 'name', text: IO.modes[o[5]], attr: ' data-op="' + IO.modes[o[5]] + '"'}, num(o[6]),
        o[7] === null ? {cls: 'name', text: 'failed'} : num(o[7]), {cls: 'name', text: o[0]},
        {cls: 'name', text: o[1]}, num(o[9], fmtNs(o[9] - M.tmin))];
    }));
  })();

  // ---- memory: the high-water mark of each process over time (VT_MEMTRACE=yes) ----
  (function () {
    var MEM = D.memory, sum = document.getElementById('memory-summary');
    if (!MEM.length) {
      sum.innerHTML = '<p class="note" id="memory-none">No memory counter in the trace (recorded with ' +
        'VT_MEMTRACE=yes).</p>';
      return;
    }
    var PW = 640, PH = 180, L = 70, B = 24, hi = 1, t0 = M.tmin, t1 = Math.max(M.tmax, M.tmin + 1);
    MEM.forEach(function (m) {
      m.points.forEach(function (p) { hi = Math.max(hi, p[1]); if (p[0] > t1) t1 = p[0]; });
    });
    function x(t) { return (L + (t - t0) / (t1 - t0) * (PW - L - 10)).toFixed(1); }
    function y(v) { return (PH - B - v / hi * (PH - B - 10)).toFixed(1); }
    var out = ['<svg xmlns="' + SVGNS + '" id="memory-svg" width="' + PW + '" height="' + PH + '">',
      '<rect class="rowbg" x="' + L + '" y="10" width="' + (PW - L - 10) + '" height="' + (PH - B - 10) + '"/>',
      '<text class="axis" x="2" y="16">' + esc(fmtBytes(hi)) + '</text>',
      '<text class="axis" x="2" y="' + (PH - B) + '">0 B</text>',
      '<text class="axis" x="' + L + '" y="' + (PH - 8) + '">0</text>',
      '<text class="axis" text-anchor="end" x="' + (PW - 10) + '" y="' + (PH - 8) + '">' +
        esc(fmtNs(t1 - t0)) + '</text>'];
    // A high-water mark only grows: between two values known, a step at the later one (what
    // it was at least); nothing before the first value known.
    MEM.forEach(function (m, n) {
      var hue = (n * 67) % 360, d = '', last = 0;
      m.points.forEach(function (p, i) {
        d += i ? 'H' + x(p[0]) + 'V' + y(p[1]) : 'M' + x(p[0]) + ' ' + y(p[1]);
        last = p[1];
      });
      if (m.points.length > 1)
        out.push('<path class="memory-line" fill="none" stroke="hsl(' + hue + ',60%,40%)" d="' + d + '"/>');
      m.points.forEach(function (p) {
        out.push('<circle class="memory-point" data-process="' + esc(m.process) + '" data-time="' + p[0] +
          '" data-bytes="' + p[1] + '" cx="' + x(p[0]) + '" cy="' + y(p[1]) + '" r="3" fill="hsl(' + hue +
          ',60%,40%)"><title>' + esc(m.process + ': ' + p[1] + ' bytes at ' + fmtNs(p[0] - t0)) +
          '</title></circle>');
      });
      out.push('<text class="label memory-label" x="' + (L + 4) + '" y="' + (24 + 12 * n) + '" fill="hsl(' + hue +
        ',60%,40%)">' + esc(m.process + (m.rank === null ? '' : ' (rank ' + m.rank + ')') + ': ' + fmtBytes(last)) +
        '</text>');
    });
    out.push('</svg>');
    sum.innerHTML = '<p>The most bytes each process had allocated at once (malloc and its family) at the ' +
      'times the trace records it (a point each; vt records it once, at the end of the run).</p>';
    document.getElementById('memory-plot').innerHTML = out.join('');
    table('memory', ['process', 'rank', 'high-water mark [bytes]', 'allocations', 'still allocated [bytes]'],
      MEM.map(function (m) {
        var high = m.points.length ? m.points[m.points.length - 1][1] : 0;
        return [{cls: 'name', text: m.process, attr: ' data-process="' + esc(m.process) + '"'},
          m.rank === null ? {cls: 'name', text: '\u2013'} : num(m.rank), num(high),
          m.allocations < 0 ? {cls: 'name', text: '\u2013'} : num(m.allocations),
          m.allocated < 0 ? {cls: 'name', text: '\u2013'} : num(m.allocated)];
      }));
  })();

  // ---- samples: a flame graph, drawn as an icicle (all samples on top, callees below) ----
  // A frame is a call path of functions, as wide as its samples at and below it; a click
  // zooms into it (it and its ancestors become full width), "reset zoom" goes back.
  var flame = null;
  (function () {
    var S = D.samples, div = document.getElementById('flame');
    if (!S || !div) return;
    var FH = 17, ctl = document.getElementById('flame-controls');
    function tree(frames) {
      var nodes = frames.map(function (f, i) {
        return {id: i, parent: f[0], region: f[1], total: f[2], self: f[3],
          lines: f[1] === -2 ? [] : f[4], more: f[1] === -2 ? 0 : f[5],
          folded: f[1] === -2 ? f[4] : 0, kids: [], depth: 0};
      });
      nodes.forEach(function (n) {
        if (n.parent >= 0) {
          nodes[n.parent].kids.push(n);
          n.depth = nodes[n.parent].depth + 1;
        }
      });
      nodes.forEach(function (n) {
        n.name = n.region === -1 ? 'all samples' : n.region === -2 ? '(other)' :
          n.region === -3 ? '<unknown>' : regionName(n.region);
        n.path = n.parent > 0 ? nodes[n.parent].path + ';' + n.name : n.parent === 0 ? n.name : '';
      });
      return nodes;
    }
    var graphs = [{name: 'all locations', nodes: tree(S.all)}].concat(S.locations.map(function (l) {
      return {name: locName(l.loc), nodes: tree(l.frames)};
    }));
    var cur = 0, focus = 0;
    function pct(n, all) {
      return (all ? 100 * n / all : 0).toFixed(1) + '%';
    }
    function title(n, all) {
      var t = n.name;
      if (n.region === -2)
        t += '\n' + n.folded + ' call path' + (n.folded === 1 ? '' : 's') + ' under ' +
          (S.share * 100) + '% of the samples each, merged';
      n.lines.forEach(function (l) {
        t += '\n' + l[0] + ':' + l[1] + (n.lines.length > 1 || n.more ? ' (' + l[2] + ' samples)' : '');
      });
      if (n.more) t += '\n' + n.more + ' more line' + (n.more === 1 ? '' : 's');
      t += '\n' + n.total + ' sample' + (n.total === 1 ? '' : 's') + ', ' + pct(n.total, all) +
        (n.self !== n.total ? ' (' + n.self + ' in the function itself)' : '');
      if (S.period > 0) t += '\n~' + fmtNs(n.total * S.period * 1e9) + ' of ' + S.source + ' time';
      return t;
    }
    function draw() {
      var nodes = graphs[cur].nodes, all = nodes[0].total, f = nodes[focus] || nodes[0];
      var W = Math.max(600, div.clientWidth || document.documentElement.clientWidth - 40);
      var out = [], deepest = 0;
      function frame(n, x, w, cls) {
        var y = n.depth * FH;
        deepest = Math.max(deepest, n.depth);
        var fill = n.region === -1 ? '#b8bcc4' : n.region === -2 ? '#d0d0d0' : n.region === -3 ?
          '#e0c0c0' : color(n.region);
        out.push('<g class="flame-g" data-id="' + n.id + '"><rect class="flame-frame' + (cls ? ' ' + cls : '') +
          '" data-id="' + n.id + '" data-parent="' + n.parent + '" data-name="' + esc(n.name) + '" data-path="' + esc(n.path) +
          '" data-depth="' + n.depth + '" data-count="' + n.total + '" data-self="' + n.self + '"' +
          (n.region === -2 ? ' data-folded="' + n.folded + '"' : '') + ' x="' + x.toFixed(2) +
          '" y="' + y + '" width="' + w.toFixed(2) + '" height="' + (FH - 1) + '" fill="' + fill +
          '"><title>' + esc(title(n, all)) + '</title></rect>');
        var chars = Math.floor((w - 6) / 6.5);
        if (chars >= 3) {
          var label = n.name + ' (' + pct(n.total, all) + ')';
          if (label.length > chars) label = n.name;
          if (label.length > chars) label = label.slice(0, chars - 1) + '\u2026';
          out.push('<text class="flame-label" x="' + (x + 3).toFixed(1) + '" y="' + (y + FH - 5) + '">' +
            esc(label) + '</text>');
        }
        out.push('</g>');
      }
      function below(n, x, w) {
        frame(n, x, w, n === f && focus ? 'focus' : '');
        var at = x;
        n.kids.forEach(function (k) {
          var kw = n.total ? w * k.total / n.total : 0;
          below(k, at, kw);
          at += kw;
        });
      }
      for (var a = f.parent; a >= 0; a = nodes[a].parent) frame(nodes[a], 0, W, 'ancestor');
      below(f, 0, W);
      div.innerHTML = '<svg xmlns="' + SVGNS + '" id="flame-svg" width="' + W + '" height="' +
        ((deepest + 1) * FH + 2) + '">' + out.join('') + '</svg>';
      document.getElementById('flame-reset').disabled = !focus;
      document.getElementById('flame-zoomed').textContent = focus ? '\u2014 zoomed into ' + f.path + ' (' +
        f.total + ' samples)' : '';
    }
    var sel = S.locations.length ? ' <label>location <select id="flame-loc">' + graphs.map(function (g, i) {
      return '<option value="' + i + '">' + esc(g.name) + '</option>';
    }).join('') + '</select></label>' : '';
    ctl.innerHTML = '<button id="flame-reset">reset zoom</button>' + sel + ' <span id="flame-note">' +
      esc(S.total + ' samples' + (S.period > 0 ? ', one per ' + fmtNs(S.period * 1e9) + ' of ' + S.source +
        ' time' : '') + '; width: samples at and below a function; click a frame to zoom; call paths under ' +
        (S.share * 100) + '% of the samples are merged into (other)') + '</span> <span id="flame-zoomed"></span>';
    document.getElementById('flame-reset').onclick = function () {
      focus = 0;
      draw();
    };
    if (sel) document.getElementById('flame-loc').onchange = function (e) {
      cur = +e.target.value;
      focus = 0;
      draw();
    };
    div.addEventListener('click', function (e) {
      var g = e.target.closest && e.target.closest('g[data-id]');
      if (!g) return;
      focus = +g.dataset.id;
      draw();
    });
    draw();
    flame = {
      click: function (name) {
        var r = div.querySelector('rect.flame-frame[data-name="' + name.replace(/["\\]/g, '\\$&') + '"]');
        if (r) r.dispatchEvent(new MouseEvent('click', {bubbles: true}));
        return !!r;
      },
      reset: function () { document.getElementById('flame-reset').click(); },
      location: function (i) {
        var s = document.getElementById('flame-loc');
        if (!s || !s.options[i]) return false;
        s.value = String(i);
        s.dispatchEvent(new Event('change', {bubbles: true}));
        return true;
      }
    };
  })();

  // ---- load per rank ----
  (function () {
    var L = D.load, max = 1, out = [], BH = 16, LW = 160, WW = 700, all = 0;
    L.forEach(function (l) { max = Math.max(max, l.user + l.mpi); all += l.user + l.mpi; });
    if (!all) {
      // A program traced by sampling alone (vtrun on a plain build) has no regions to weigh.
      document.getElementById('load').innerHTML = '<p class="note" id="load-none">No instrumented ' +
        'function or MPI call was recorded' + (D.samples ? ': where the time went is in the ' +
        '<a href="#samples-section">samples</a>.' : '.') + '</p>';
      return;
    }
    out.push('<div class="legend"><span><i class="swatch" style="background:#4a7fc1"></i>user code</span>' +
      '<span><i class="swatch" style="background:#d9534f"></i>MPI</span></div>');
    out.push('<svg xmlns="' + SVGNS + '" width="' + (LW + WW + 120) + '" height="' + (L.length * (BH + 4) + 4) + '">');
    L.forEach(function (l, i) {
      var y0 = 2 + i * (BH + 4), wu = l.user / max * WW, wm = l.mpi / max * WW;
      out.push('<text class="label" x="4" y="' + (y0 + 12) + '">' + esc(l.name) + '</text>');
      out.push('<rect class="load-bar" data-kind="user" data-name="' + esc(l.name) + '" data-value="' + l.user +
        '" x="' + LW + '" y="' + y0 + '" width="' + wu.toFixed(1) + '" height="' + BH + '" fill="#4a7fc1"/>');
      out.push('<rect class="load-bar" data-kind="mpi" data-name="' + esc(l.name) + '" data-value="' + l.mpi +
        '" x="' + (LW + wu).toFixed(1) + '" y="' + y0 + '" width="' + wm.toFixed(1) + '" height="' + BH +
        '" fill="#d9534f"/>');
      out.push('<text class="axis" x="' + (LW + wu + wm + 4).toFixed(1) + '" y="' + (y0 + 12) + '">' +
        esc(fmtTicks(l.user) + ' + ' + fmtTicks(l.mpi)) + '</text>');
    });
    out.push('</svg>');
    document.getElementById('load').innerHTML = out.join('');
  })();

  // ---- MPI ----
  (function () {
    var ranks = [], seen = {}, maxBytes = 1;
    D.pairs.forEach(function (p) {
      [p[0], p[1]].forEach(function (r) {
        if (!seen[r]) { seen[r] = true; ranks.push(r); }
      });
      maxBytes = Math.max(maxBytes, p[3]);
    });
    ranks.sort(function (a, b) { return a - b; });
    var cell = {};
    D.pairs.forEach(function (p) { cell[p[0] + ',' + p[1]] = p; });
    var m = document.getElementById('matrix');
    if (!ranks.length) {
      m.textContent = 'no point-to-point messages';
    } else {
      var out = ['<table><tr><th>from \\ to</th>'];
      ranks.forEach(function (r) { out.push('<th>' + r + '</th>'); });
      out.push('</tr>');
      ranks.forEach(function (a) {
        out.push('<tr><th>' + a + '</th>');
        ranks.forEach(function (b) {
          var p = cell[a + ',' + b];
          if (!p) { out.push('<td></td>'); return; }
          var heat = Math.log(1 + p[3]) / Math.log(1 + maxBytes);
          out.push('<td class="cell" data-from="' + a + '" data-to="' + b + '" data-count="' + p[2] +
            '" data-bytes="' + p[3] + '" style="background:hsl(10,80%,' + (95 - 45 * heat).toFixed(0) +
            '%)">' + p[2] + '<br>' + esc(fmtBytes(p[3])) + '</td>');
        });
        out.push('</tr>');
      });
      out.push('</table><div>cells: messages and bytes sent from the row\u2019s rank to the column\u2019s; ' +
        'darker: more bytes</div>');
      m.innerHTML = out.join('');
    }
    var sz = document.getElementById('sizes');
    if (!D.sizes.length) {
      sz.textContent = 'no messages';
    } else {
      var maxN = 1, out2 = [], BW = 36, H = 120;
      D.sizes.forEach(function (s) { maxN = Math.max(maxN, s[1]); });
      out2.push('<svg xmlns="' + SVGNS + '" width="' + (D.sizes.length * (BW + 6) + 10) + '" height="' + (H + 30) + '">');
      D.sizes.forEach(function (s, i) {
        var h = s[1] / maxN * H, x = 5 + i * (BW + 6);
        var label = s[0] === 0 ? '0 B' : '<' + fmtBytes(Math.pow(2, s[0]));
        out2.push('<rect class="size-bar" data-bucket="' + s[0] + '" data-count="' + s[1] + '" x="' + x + '" y="' +
          (H - h + 2).toFixed(1) + '" width="' + BW + '" height="' + h.toFixed(1) + '" fill="#6a8"/>');
        out2.push('<text class="axis" x="' + x + '" y="' + (H + 14) + '">' + esc(label) + '</text>');
        out2.push('<text class="axis" x="' + x + '" y="' + (H + 26) + '">' + s[1] + '</text>');
      });
      out2.push('</svg>');
      sz.innerHTML = out2.join('');
    }
    table('collectives', ['kind', 'instances', 'time (all members)', 'bytes sent', 'bytes received'],
      D.colls.map(function (c) {
        return [{cls: 'name', text: c[0], attr: ' data-kind="' + c[0] + '"'}, num(c[1]),
          num(c[2], fmtTicks(c[2])), num(c[3]), num(c[4])];
      }));
  })();

  // ---- metadata ----
  (function () {
    var A = M.archive, threads = D.locations.filter(function (l) { return l.type === 1; }).length;
    var r = [['trace', M.trace], ['program', A.description || '(not recorded)'],
      ['recorded by', A.creator || '(not recorded)'], ['machine', A.machine || '(not recorded)'],
      ['report by', M.tool], ['ranks', M.ranks], ['threads', threads],
      ['locations', M.locations], ['events', M.events], ['duration', fmtNs(M.tmax - M.tmin)],
      ['timer resolution', M.resolution + ' ticks/s'],
      ['timeline', M.aggregated ? 'levels of detail: ' + M.slices + ' slices one by one, shorter ones in bins of ' +
        fmtNs(M.bin_ns) : 'every slice (' + M.slices + ')'],
      ['problems', M.problems]];
    // the recording's settings (VT::SETTINGS::NAME) under their variables' names, after
    // the other properties
    var settings = [];
    Object.keys(A).forEach(function (k) {
      var s = /^VT::SETTINGS::(.*)$/i.exec(k);
      if (s) settings.push([s[1], A[k]]);
      else if (k !== 'description' && k !== 'creator' && k !== 'machine') r.push([k, A[k]]);
    });
    r = r.concat(settings);
    table('meta', ['', ''], r);
  })();

  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), sortable);
  // "#view=T0,T1" (ns after the clock's offset) opens the page zoomed there.
  var hv = /view=([0-9.]+),([0-9.]+)/.exec(location.hash);
  if (hv && +hv[2] > +hv[1]) {
    view.t0 = Math.max(full0, +hv[1]);
    view.t1 = Math.min(full1, +hv[2]);
  }
  drawTimeline();
  // "#selftest": the page drives its own zoom and pan handlers with synthetic key and wheel
  // events and notes the view after each (data-selftest), for a browser test without input.
  if (/selftest/.test(location.hash)) {
    var seen = [];
    var note = function () { seen.push([view.t0, view.t1].join(':')); };
    var key = function (k) {
      window.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
      note();
    };
    note();
    key('+');
    key('ArrowRight');
    key('-');
    key('0');
    var rect = tl.getBoundingClientRect();
    tl.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: rect.left + W * 0.75,
      clientY: rect.top + 30, bubbles: true, cancelable: true}));
    note();
    document.body.setAttribute('data-selftest', seen.join(' '));
  }
  // "#flame=NAME": the page clicks the first frame of the flame graph named NAME (and then its
  // reset control with "#flame=NAME&reset"); "#flameloc=I" picks the I-th entry of the
  // location selector first. For a browser test without input.
  var hl = /flameloc=(\d+)/.exec(location.hash);
  if (hl && flame)
    document.body.setAttribute('data-flame-location', flame.location(+hl[1]) ? '1' : '0');
  var hf = /flame=([^&]+)(&reset)?/.exec(location.hash);
  if (hf && flame) {
    document.body.setAttribute('data-flame-clicked', flame.click(decodeURIComponent(hf[1])) ? '1' : '0');
    if (hf[2]) flame.reset();
  }
  // ---- wait states and critical path: vt-profile --waits / --critical-path JSON as is ----
  (function () {
    var W = D.waits, C = D.critpath;
    var wsum = document.getElementById('waits-summary'), csum = document.getElementById('critpath-summary');
    if (!W || !C) {
      var none = '<p class="note">No communicator in the trace: no MPI message, collective or OpenMP barrier to wait in.</p>';
      wsum.innerHTML = none;
      csum.innerHTML = none;
      return;
    }
    // The run: its length from the first event to the last, on every location (ticks).
    var run = M.locations * (M.tmax - M.tmin) * RES / 1e9;
    function share(t, of) {
      var v = of ? t / of * 100 : 0;
      return num(v, v.toFixed(2) + '%');
    }
    function where(x) {
      return x.rank === null ? x.name : 'rank ' + x.rank + ' (' + x.name + ')';
    }
    function pathText(p) {
      return p.length ? p.join(' > ') : '(outside every region)';
    }
    var names = {};
    W.patterns.forEach(function (p) { names[p.pattern] = p.name; });
    wsum.innerHTML = '<p id="waits-total" data-ticks="' + W.total_ticks + '">' +
      esc(fmtTicks(W.total_ticks)) + ' waiting in all, ' + share(W.total_ticks, run).text +
      ' of the run (' + M.locations + ' locations for ' + esc(fmtNs(M.tmax - M.tmin)) + ')' +
      (W.problems ? '; ' + W.problems + ' unmatched message(s) or collective(s) left out' : '') + '</p>';
    table('waits', ['pattern', 'instances', 'time', 'share of the run'], W.patterns.map(function (p) {
      return [{cls: 'name', text: p.name, attr: ' data-pattern="' + p.pattern + '"'}, num(p.instances),
        num(p.time_ticks, fmtTicks(p.time_ticks)), share(p.time_ticks, run)];
    }));
    // Per pattern with time: its top call paths, ranks and communicators.
    var TOP = 5, out = [];
    W.patterns.forEach(function (p) {
      if (!p.time_ticks) return;
      var rows = [];
      [['call_paths', 'call path', function (x) { return pathText(x.path); }],
        ['locations', 'rank', where], ['communicators', 'communicator', function (x) { return x.name; }]
      ].forEach(function (k) {
        W[k[0]].filter(function (x) { return x.pattern === p.pattern; }).map(function (x, i) {
          return [x, i];
        }).sort(function (a, b) {
          return b[0].time_ticks - a[0].time_ticks || a[1] - b[1];
        }).slice(0, TOP).forEach(function (xi) {
          var x = xi[0];
          rows.push('<tr data-kind="' + k[0] + '"><td>' + k[1] + '</td><td class="name">' + esc(k[2](x)) +
            '</td><td class="num" data-value="' + x.instances + '">' + x.instances +
            '</td><td class="num" data-value="' + x.time_ticks + '">' + esc(fmtTicks(x.time_ticks)) +
            '</td><td class="num">' + share(x.time_ticks, p.time_ticks).text + '</td></tr>');
        });
      });
      out.push('<h3>' + esc(p.name) + '</h3><table class="waits-top" id="waits-' + p.pattern +
        '"><thead><tr><th>by</th><th>where</th><th>instances</th><th>time</th><th>of the pattern</th></tr></thead><tbody>' +
        rows.join('') + '</tbody></table>');
    });
    document.getElementById('waits-top').innerHTML = out.join('');

    csum.innerHTML = '<p id="critpath-total" data-ticks="' + C.length_ticks + '">' +
      esc(fmtTicks(C.length_ticks)) + ' long, through ' + C.waits_followed + ' wait' +
      (C.waits_followed === 1 ? '' : 's') + '; ' + esc(fmtTicks(C.delay_cost_ticks)) +
      ' of waiting caused by the ranks\' computation (delay costs)</p>';
    // The largest delay costs as sentences: whose computation made others wait, and where.
    var last = function (p) { return p.length ? p[p.length - 1] : '(outside every region)'; };
    var costs = C.delay_costs.slice(0, 10).map(function (x) {
      var who = x.rank === null ? x.name : 'rank ' + x.rank;
      return '<li class="delay-cost" data-ticks="' + x.cost_ticks + '" data-rank="' + x.rank +
        '" data-path="' + esc(x.path.join(';')) + '" data-pattern="' + x.pattern + '" data-wait-path="' +
        esc(x.wait_path.join(';')) + '" data-waits="' + x.waits + '" title="' + esc(pathText(x.path) +
        '  <-  ' + pathText(x.wait_path)) + '">' + esc(who + '\'s ' + last(x.path) + ' made ' +
        (x.waits === 1 ? 'a rank' : 'others') + ' wait ' + fmtTicks(x.cost_ticks) + ' in ' +
        last(x.wait_path) + ' (' + (names[x.pattern] || x.pattern) + ', ' + x.waits + ' wait' +
        (x.waits === 1 ? '' : 's') + ')') + '</li>';
    });
    document.getElementById('delay-costs').innerHTML = costs.length ? costs.join('') :
      '<li class="note">none: no MPI wait</li>';
    table('critpath-ranks', ['rank', 'location', 'time on the path', 'share'], C.locations.map(function (x) {
      return [x.rank === null ? '-' : String(x.rank), {cls: 'name', text: x.name},
        num(x.time_ticks, fmtTicks(x.time_ticks)), share(x.time_ticks, C.length_ticks)];
    }));
    var PATHS = 50;
    table('critpath-paths', ['rank', 'call path', 'time on the path', 'share'],
      C.call_paths.slice(0, PATHS).map(function (x) {
        return [x.rank === null ? '-' : String(x.rank), {cls: 'name', text: pathText(x.path)},
          num(x.time_ticks, fmtTicks(x.time_ticks)), share(x.time_ticks, C.length_ticks)];
      }));
    if (C.call_paths.length > PATHS)
      csum.innerHTML += '<p class="note">' + PATHS + ' call paths of ' + C.call_paths.length +
        ' shown, the longest on the path (vt-profile --critical-path lists all).</p>';
  })();

  // Where the timeline was drawn, for tests that look at a screenshot.
  var box = tl.getBoundingClientRect();
  document.body.setAttribute('data-timeline-box', [box.left + window.scrollX, box.top + window.scrollY,
    box.width, box.height].map(Math.round).join(','));
  // The same for the flame graph, the I/O sizes charts and the memory plot.
  [['flame', 'data-flame-box'], ['io-sizes', 'data-io-sizes-box'],
    ['memory-svg', 'data-memory-box']].forEach(function (x) {
    var el = document.getElementById(x[0]);
    if (!el) return;
    var b = el.getBoundingClientRect();
    document.body.setAttribute(x[1], [b.left + window.scrollX, b.top + window.scrollY, b.width,
      b.height].map(Math.round).join(','));
  });
  window.addEventListener('resize', function () {
    if (Math.abs(width() - W) > 20) drawTimeline();
  });
  // How long building the page took (milliseconds), for bench/run-viz.py: the script alone,
  // and from the start of the navigation (loading and parsing the file included).
  document.body.setAttribute('data-render-ms', Math.round(performance.now() - started));
  document.body.setAttribute('data-ready-ms', Math.round(performance.now()));
  document.body.setAttribute('data-ready', '1');
})();
