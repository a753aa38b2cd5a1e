// placer dashboard: polls v1/epochs (relative, so the page works behind a path prefix) and
// renders the newest epoch with the DOM API only (text goes in through textContent, never as
// markup). Stable hooks for tests and scripts: data-pool, data-job, data-kind, data-locality,
// data-field, data-seq, and the ids of index.html.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var POLL_MS = 2000;
  var epochs = [];      // kept records, oldest first
  var capacity = 120;
  var lastSeq = 0;
  // With `placer serve --tokens`, open the page as /#token=TOKEN (a token with scope read;
  // README "TLS and tokens"): the fragment never leaves the browser, and the token goes to
  // v1/epochs as `Authorization: Bearer`, never into the page.
  var TOKEN = (function () {
    var m = /(?:^#|&)token=([^&]*)/.exec(window.location.hash || "");
    if (!m) { return ""; }
    try { return decodeURIComponent(m[1]); } catch (e) { return ""; }
  })();

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function svgEl(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    return node;
  }

  function setAttrs(node, attrs) {
    if (!attrs) { return; }
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  // Up to 2 decimals, trailing zeros dropped: 2.5, 3, 0.33.
  function num(x) {
    if (x === null || x === undefined) { return "–"; }
    return String(Math.round(x * 100) / 100);
  }

  function cell(text, field, numeric) {
    var attrs = {};
    if (field) { attrs["data-field"] = field; }
    if (numeric) { attrs["class"] = "num"; }
    return el("td", attrs, text);
  }

  // A horizontal bar: demand (faint, cut at the width), running after the answer (solid), fair
  // share (marker), all on the scale `max` slots.
  function shareBar(kind, fair, running, demand, max) {
    var w = 110, h = 14;
    var x = function (v) { return max > 0 ? Math.max(0, Math.min(w, (v / max) * w)) : 0; };
    var svg = svgEl("svg", { "class": "bar", width: w, height: h, viewBox: "0 0 " + w + " " + h, "data-kind": kind });
    svg.appendChild(svgEl("rect", { "class": "demand", x: 0, y: 2, width: x(demand), height: h - 4 }));
    svg.appendChild(svgEl("rect", { "class": "running", x: 0, y: 4, width: x(running), height: h - 8 }));
    if (fair !== null && fair !== undefined) {
      var fx = Math.max(1.5, Math.min(w - 1.5, x(fair)));
      svg.appendChild(svgEl("line", { "class": "share", x1: fx, x2: fx, y1: 0, y2: h }));
    }
    return svg;
  }

  function renderSummary(r) {
    document.body.setAttribute("data-last-seq", String(r.seq));
    $("last-seq").textContent = String(r.seq);
    $("epoch-time").textContent = r.time;
    $("request-id").textContent = r.request_id;
    $("algorithm").textContent = r.algorithm + (r.engine ? " / " + r.engine : "");
    $("solve-status").textContent = r.status;
    $("solve-ms").textContent = num(r.solve_ms) + " ms";
    $("assigned").textContent = r.stats.assigned + " / " + r.stats.pending;
    $("preempted").textContent = String(r.stats.preempted);
  }

  function renderPools(r) {
    var body = $("pools");
    clear(body);
    var settings = {};
    (r.pool_settings || []).forEach(function (s) { settings[s.id] = s; });
    var max = { map: 0, reduce: 0 };
    var maxDemand = { map: 0, reduce: 0 };
    r.pools.forEach(function (p) {
      maxDemand.map = Math.max(maxDemand.map, p.demand.map);
      maxDemand.reduce = Math.max(maxDemand.reduce, p.demand.reduce);
      ["map", "reduce"].forEach(function (k) {
        var fair = p.fair_share ? p.fair_share[k] : 0;
        max[k] = Math.max(max[k], p.running_after[k], p.running[k], fair);
      });
    });
    // Nothing runs and no share: scale on the demand instead.
    ["map", "reduce"].forEach(function (k) { if (max[k] === 0) { max[k] = maxDemand[k]; } });
    r.pools.forEach(function (p) {
      var s = settings[p.id] || { weight: 1, min_map_share: 0, min_reduce_share: 0 };
      var row = el("tr", { "data-pool": p.id });
      row.appendChild(cell(p.id, "id"));
      row.appendChild(cell(num(s.weight), "weight", true));
      row.appendChild(cell(num(s.min_map_share) + " / " + num(s.min_reduce_share), "min_share", true));
      ["map", "reduce"].forEach(function (k) {
        var fair = p.fair_share ? p.fair_share[k] : null;
        row.appendChild(cell(num(fair), "fair_share_" + k, true));
        row.appendChild(cell(num(p.running[k]), "running_" + k, true));
        row.appendChild(cell(num(p.running_after[k]), "running_after_" + k, true));
        row.appendChild(cell(num(p.demand[k]), "demand_" + k, true));
        var td = el("td", { "data-field": "bar_" + k });
        td.appendChild(shareBar(k, fair, p.running_after[k], p.demand[k], max[k]));
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    var t = $("pools-truncated");
    t.hidden = !r.pools_truncated;
    t.textContent = r.pools_truncated ? "and " + r.pools_truncated + " more pools" : "";
  }

  // "37 of 40 maps waiting: waiting_for_locality", more reasons with their counts.
  function waitingText(job, kind) {
    var reasons = job.reasons.filter(function (c) { return c.kind === kind; });
    reasons.sort(function (a, b) { return b.tasks - a.tasks || (a.reason < b.reason ? -1 : 1); });
    var why = reasons.length === 1
      ? reasons[0].reason
      : reasons.map(function (c) { return c.reason + " " + c.tasks; }).join(", ");
    var plural = kind === "map" ? "maps" : "reduces";
    return job.waiting[kind] + " of " + job.pending[kind] + " " + plural + " waiting: " + why;
  }

  function renderJobs(r) {
    var body = $("jobs");
    clear(body);
    r.jobs.forEach(function (job) {
      ["map", "reduce"].forEach(function (kind) {
        if (!job.waiting[kind]) { return; }
        var row = el("tr", { "data-job": job.job, "data-pool": job.pool, "data-kind": kind });
        row.appendChild(cell(job.job, "job"));
        row.appendChild(cell(job.pool, "pool"));
        row.appendChild(cell(kind, "kind"));
        row.appendChild(cell(waitingText(job, kind), "waiting"));
        row.appendChild(cell(job.running[kind], "running", true));
        body.appendChild(row);
      });
    });
    if (!r.jobs.length) {
      body.appendChild(el("tr", {}, "")).appendChild(el("td", { colspan: 5, "class": "muted" }, "no task waits"));
    }
    var t = $("jobs-truncated");
    t.hidden = !r.jobs_truncated;
    t.textContent = r.jobs_truncated ? "and " + r.jobs_truncated + " more jobs with waiting tasks" : "";
    var reasons = $("reasons");
    clear(reasons);
    r.waiting_by_reason.forEach(function (c) {
      var row = el("tr", { "data-kind": c.kind, "data-reason": c.reason });
      row.appendChild(cell(c.kind, "kind"));
      row.appendChild(cell(c.reason, "reason"));
      row.appendChild(cell(c.tasks, "tasks", true));
      reasons.appendChild(row);
    });
  }

  var LOCALITIES = ["node", "rack", "remote", "none"];

  function localityRow(scope, label, kind, counts) {
    var row = el("tr", { "data-scope": scope, "data-kind": kind });
    row.appendChild(cell(label));
    row.appendChild(cell(kind, "kind"));
    var total = 0;
    LOCALITIES.forEach(function (l) {
      total += counts[l];
      var td = cell(counts[l], l, true);
      td.setAttribute("data-locality", l);
      row.appendChild(td);
    });
    var w = 140, h = 14, x = 0;
    var svg = svgEl("svg", { "class": "bar", width: w, height: h, viewBox: "0 0 " + w + " " + h });
    LOCALITIES.forEach(function (l) {
      var width = total > 0 ? (counts[l] / total) * w : 0;
      svg.appendChild(svgEl("rect", { "class": l, x: x, y: 2, width: width, height: h - 4 }));
      x += width;
    });
    var td = el("td");
    td.appendChild(svg);
    row.appendChild(td);
    return row;
  }

  function renderLocality(r) {
    var body = $("locality");
    clear(body);
    var sum = { map: {}, reduce: {} };
    ["map", "reduce"].forEach(function (k) { LOCALITIES.forEach(function (l) { sum[k][l] = 0; }); });
    epochs.forEach(function (e) {
      ["map", "reduce"].forEach(function (k) {
        LOCALITIES.forEach(function (l) { sum[k][l] += e.placed[k][l]; });
      });
    });
    ["map", "reduce"].forEach(function (k) {
      body.appendChild(localityRow("last", "last epoch", k, r.placed[k]));
    });
    ["map", "reduce"].forEach(function (k) {
      body.appendChild(localityRow("kept", epochs.length + " epochs", k, sum[k]));
    });
  }

  function renderPreemptions() {
    var body = $("preemptions");
    clear(body);
    var shown = 0;
    for (var i = epochs.length - 1; i >= 0 && shown < 100; i--) {
      var e = epochs[i];
      for (var j = 0; j < e.preemptions.length && shown < 100; j++) {
        var p = e.preemptions[j];
        var row = el("tr", { "data-seq": e.seq, "data-task": p.task });
        row.appendChild(cell(e.seq, "seq", true));
        row.appendChild(cell(p.task, "task"));
        row.appendChild(cell(p.node, "node"));
        row.appendChild(cell(p.victim_job || "?", "victim_job"));
        row.appendChild(cell(p.victim_pool || "?", "victim_pool"));
        row.appendChild(cell(p.for_pool, "for_pool"));
        row.appendChild(cell(p.reason, "rule"));
        body.appendChild(row);
        shown++;
      }
    }
    $("preemptions-none").hidden = shown > 0;
  }

  // Solve time per kept epoch: a polyline with a dot per epoch (data-seq, data-ms).
  function renderChart() {
    var svg = $("solve-chart");
    clear(svg);
    var W = 640, H = 180, left = 48, right = 10, top = 10, bottom = 24;
    var max = 0;
    epochs.forEach(function (e) { max = Math.max(max, e.solve_ms); });
    max = max > 0 ? max * 1.1 : 1;
    var n = epochs.length;
    var x = function (i) { return left + (n > 1 ? (i / (n - 1)) * (W - left - right) : (W - left - right) / 2); };
    var y = function (v) { return top + (1 - v / max) * (H - top - bottom); };
    [0, 0.5, 1].forEach(function (f) {
      var v = max * f;
      svg.appendChild(svgEl("line", { "class": "grid", x1: left, x2: W - right, y1: y(v), y2: y(v) }));
      var label = svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" });
      label.textContent = num(v);
      svg.appendChild(label);
    });
    svg.appendChild(svgEl("line", { "class": "axis", x1: left, x2: left, y1: top, y2: H - bottom }));
    svg.appendChild(svgEl("line", { "class": "axis", x1: left, x2: W - right, y1: H - bottom, y2: H - bottom }));
    if (!n) { return; }
    var points = epochs.map(function (e, i) { return x(i).toFixed(1) + "," + y(e.solve_ms).toFixed(1); });
    svg.appendChild(svgEl("polyline", { points: points.join(" ") }));
    epochs.forEach(function (e, i) {
      var dot = svgEl("circle", { cx: x(i), cy: y(e.solve_ms), r: 2.5, "data-seq": e.seq, "data-ms": e.solve_ms });
      var title = svgEl("title", {});
      title.textContent = "epoch " + e.seq + ": " + num(e.solve_ms) + " ms";
      dot.appendChild(title);
      svg.appendChild(dot);
    });
    [[0, "start"], [n - 1, "end"]].forEach(function (pair) {
      var t = svgEl("text", { x: x(pair[0]), y: H - 6, "text-anchor": pair[1] });
      t.textContent = "#" + epochs[pair[0]].seq;
      svg.appendChild(t);
    });
  }

  function render() {
    var r = epochs[epochs.length - 1];
    if (!r) { return; }
    renderSummary(r);
    renderPools(r);
    renderJobs(r);
    renderLocality(r);
    renderPreemptions();
    renderChart();
    $("updated").textContent = "updated " + new Date().toLocaleTimeString() +
      " · " + epochs.length + " of " + capacity + " kept epochs · refreshes every " + POLL_MS / 1000 + " s";
  }

  function poll() {
    var headers = TOKEN ? { "Authorization": "Bearer " + TOKEN } : {};
    fetch("v1/epochs?since=" + lastSeq, { cache: "no-store", headers: headers })
      .then(function (res) {
        if (res.status === 401 || res.status === 403) {
          throw new Error("GET v1/epochs: HTTP " + res.status +
            ": open this page as /#token=TOKEN with a token of scope read");
        }
        if (!res.ok) { throw new Error("GET v1/epochs: HTTP " + res.status); }
        return res.json();
      })
      .then(function (page) {
        $("error").hidden = true;
        capacity = page.capacity;
        if (page.last_seq < lastSeq) {
          // The server restarted: start over.
          epochs = [];
          lastSeq = 0;
          return poll();
        }
        if (page.epochs.length) {
          epochs = epochs.concat(page.epochs).slice(-Math.max(capacity, 1));
          lastSeq = page.epochs[page.epochs.length - 1].seq;
          render();
        }
        lastSeq = Math.max(lastSeq, page.last_seq);
      })
      .catch(function (err) {
        var e = $("error");
        e.hidden = false;
        e.textContent = String(err);
      });
  }

  poll();
  setInterval(poll, POLL_MS);
})();
