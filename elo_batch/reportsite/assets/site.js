/* elo-batch report: the rating list (index.html) and a player's calculation (player.html).
   Data come as classic <script> files calling ELO.put(key, value) (file:// allows no fetch());
   every text from the data is inserted with textContent, never as HTML. */
"use strict";
var ELO = (function () {
  var store = {}, waiting = {};
  var MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
  var VIEW = 100; // list rows a view shows

  function put(key, value) {
    store[key] = value;
    (waiting[key] || []).forEach(function (done) { done(value); });
    delete waiting[key];
  }

  /* The value of a data file: its script added once, the promise kept until ELO.put arrives. */
  function load(path, key) {
    if (key in store) return Promise.resolve(store[key]);
    return new Promise(function (resolve, reject) {
      var first = !(key in waiting);
      (waiting[key] = waiting[key] || []).push(resolve);
      if (!first) return;
      var tag = document.createElement("script");
      tag.src = path;
      tag.onerror = function () { delete waiting[key]; reject(new Error("no data file " + path)); };
      document.body.appendChild(tag);
    });
  }

  var NUMBER = /^[+-]?\d+(\.\d+)?( \*)?$/;
  /* A table cell: its text (or node), aligned left unless it is a number. */
  function cell(content) {
    var td = el("td");
    if (content instanceof Node) td.appendChild(content); else td.textContent = content === null ? "" : String(content);
    if (!NUMBER.test(td.textContent)) td.className = "text";
    return td;
  }

  function el(name, text, cls) {
    var node = document.createElement(name);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  /* The shard of an id: h = h * 31 + byte over its UTF-8 bytes (mod 2**32), as build.py's id_hash. */
  function bucket(id, buckets) {
    var h = 0, bytes = new TextEncoder().encode(id);
    for (var i = 0; i < bytes.length; i++) h = (Math.imul(h, 31) + bytes[i]) >>> 0;
    return (h % buckets).toString(16);
  }

  function summary(period) { return load("data/" + period + "/summary.js", "summary:" + period); }
  function page(period, n) { return load("data/" + period + "/list/" + n + ".js", "list:" + period + ":" + n); }
  function shard(period, id) {
    var b = bucket(id, store.site.buckets);
    return load("data/" + period + "/players/" + b + ".js", "players:" + period + ":" + b);
  }
  function playerHref(id, period) {
    return "player.html?id=" + encodeURIComponent(id) + "&period=" + encodeURIComponent(period);
  }
  function fixed(x, digits) { return x === null || x === undefined ? "" : Number(x).toFixed(digits); }
  function text(x) { return x === null || x === undefined ? "" : String(x); }
  function signed(x, digits) { var t = fixed(x, digits); return x > 0 ? "+" + t : t; }
  function record(columns, row) {
    var out = {};
    columns.forEach(function (name, i) { out[name] = row[i]; });
    return out;
  }
  /* A list row as text: the columns the data files hold as an index into the filter's values mapped back. */
  function decoded(sum, row) {
    return sum.columns.map(function (name, i) {
      var coded = sum.coded.indexOf(name) >= 0 && row[i] !== null;
      return coded ? sum.filters[name][row[i]] : row[i];
    });
  }

  /* ---- index.html: the rating list ---- */
  var list = { period: null, positions: null, view: 0, sum: null };

  function startIndex() {
    var site = store.site, picker = document.getElementById("period");
    site.periods.forEach(function (p) { picker.appendChild(el("option", p)); });
    picker.value = site.latest;
    document.getElementById("picker-label").hidden = site.periods.length < 2;
    picker.onchange = function () { showPeriod(picker.value); };
    document.getElementById("controls").onsubmit = function (e) { e.preventDefault(); query(); };
    document.getElementById("prev").onclick = function () { list.view--; drawView(); };
    document.getElementById("next").onclick = function () { list.view++; drawView(); };
    return showPeriod(site.latest);
  }

  function showPeriod(period) {
    document.querySelectorAll("section.summary").forEach(function (s) { s.hidden = s.dataset.period !== period; });
    return summary(period).then(function (sum) {
      list.period = period; list.sum = sum; list.positions = null; list.view = 0;
      drawControls(sum);
      drawHead(sum.columns);
      return drawView();
    });
  }

  function drawControls(sum) {
    var box = document.getElementById("filters");
    box.textContent = "";
    Object.keys(sum.filters).forEach(function (name) {
      var select = el("select");
      select.dataset.column = name;
      select.setAttribute("aria-label", name);
      select.appendChild(el("option", "any " + name)).value = "";
      sum.filters[name].forEach(function (value, i) { select.appendChild(el("option", value)).value = String(i); });
      select.onchange = query;
      box.appendChild(select);
    });
    document.getElementById("search").placeholder = sum.names ? "player id or name" : "player id";
    document.getElementById("controls").hidden = false;
  }

  function drawHead(columns) {
    var row = el("tr"), head = document.querySelector("#list thead");
    head.textContent = "";
    row.appendChild(el("th", "#"));
    columns.forEach(function (name) { row.appendChild(el("th", name)); });
    head.appendChild(row);
  }

  /* The positions the search and the filters keep (null: every row). */
  function query() {
    var text = document.getElementById("search").value.trim(), period = list.period, sum = list.sum;
    var chosen = [];
    document.querySelectorAll("#filters select").forEach(function (s) {
      if (s.value !== "") chosen.push([s.dataset.column, String.fromCharCode(48 + Number(s.value))]);
    });
    var steps = [];
    if (chosen.length) steps.push(load("data/" + period + "/filters.js", "filters:" + period).then(function (codes) {
      return byFilters(codes, chosen, sum.players);
    }));
    if (text) steps.push(search(text, period, sum));
    return Promise.all(steps).then(function (sets) {
      list.positions = sets.length ? sets.reduce(intersect) : null;
      list.view = 0;
      return drawView();
    });
  }

  function byFilters(codes, chosen, n) {
    var found = [];
    for (var i = 0; i < n; i++) {
      var keep = true;
      for (var j = 0; j < chosen.length && keep; j++) keep = codes[chosen[j][0]].charAt(i) === chosen[j][1];
      if (keep) found.push(i);
    }
    return found;
  }

  function intersect(a, b) {
    var inB = new Set(b);
    return a.filter(function (x) { return inB.has(x); });
  }

  /* An id: its shard says its place; else, with names, every place whose name holds the text. */
  function search(text, period, sum) {
    return shard(period, text).then(function (players) {
      return Object.prototype.hasOwnProperty.call(players, text) ? [players[text][0]] : [];
    }, function () { return []; }).then(function (found) {
      if (found.length || !sum.names) return found;
      var files = [];
      for (var n = 0; n * sum.names_size < sum.players; n++) {
        files.push(load("data/" + period + "/names/" + n + ".js", "names:" + period + ":" + n));
      }
      return Promise.all(files).then(function (parts) {
        var needle = text.toLowerCase(), out = [];
        parts.forEach(function (names, n) {
          names.split("\n").forEach(function (name, i) { if (name.indexOf(needle) >= 0) out.push(n * sum.names_size + i); });
        });
        return out;
      });
    });
  }

  function drawView() {
    var sum = list.sum, total = list.positions ? list.positions.length : sum.players;
    var last = Math.max(0, Math.ceil(total / VIEW) - 1);
    list.view = Math.min(Math.max(0, list.view), last);
    var from = list.view * VIEW, wanted = [];
    for (var i = from; i < Math.min(total, from + VIEW); i++) wanted.push(list.positions ? list.positions[i] : i);
    var pages = Array.from(new Set(wanted.map(function (p) { return Math.floor(p / sum.page_size); })));
    var period = list.period;
    return Promise.all(pages.map(function (n) { return page(period, n); })).then(function () {
      if (period !== list.period) return;
      var body = document.querySelector("#list tbody");
      body.textContent = "";
      wanted.forEach(function (p) {
        var row = store["list:" + period + ":" + Math.floor(p / sum.page_size)][p % sum.page_size];
        body.appendChild(listRow(sum, decoded(sum, row), p));
      });
      document.getElementById("list-status").textContent = total + (total === 1 ? " player" : " players");
      document.getElementById("page").textContent = "page " + (list.view + 1) + " of " + (last + 1);
      document.getElementById("pager").hidden = last === 0;
    });
  }

  function listRow(sum, row, position) {
    var tr = el("tr");
    tr.appendChild(el("td", position + 1));
    sum.columns.forEach(function (name, i) {
      if (name !== "player_id") { tr.appendChild(cell(row[i])); return; }
      var a = el("a", row[i]);
      a.href = playerHref(row[i], list.period);
      tr.appendChild(cell(a));
    });
    return tr;
  }

  /* ---- player.html: FIDE's individual calculations ---- */
  function startPlayer() {
    var params = new URLSearchParams(location.search), id = params.get("id") || "", asked = params.get("period");
    var site = store.site, status = document.getElementById("player-status");
    var periods = asked ? [asked] : site.periods.slice().reverse();
    if (!id || periods.some(function (p) { return site.periods.indexOf(p) < 0 || !MONTH.test(p); })) {
      status.textContent = "No such player or period in this report.";
      return Promise.resolve();
    }
    return findPlayer(id, periods).then(function (found) {
      if (!found) { status.textContent = "Player " + id + " is not in this report."; return; }
      return Promise.all([summary(found.period), page(found.period, Math.floor(found.entry[0] / site.page_size))])
        .then(function (got) {
          var sum = got[0], row = got[1][found.entry[0] % site.page_size];
          status.textContent = "";
          drawPlayer(id, found.period, sum, record(sum.columns, decoded(sum, row)), found.entry);
        });
    });
  }

  function findPlayer(id, periods) {
    if (!periods.length) return Promise.resolve(null);
    return shard(periods[0], id).then(function (players) {
      if (Object.prototype.hasOwnProperty.call(players, id)) return { period: periods[0], entry: players[id] };
      return findPlayer(id, periods.slice(1));
    });
  }

  function drawPlayer(id, period, sum, me, entry) {
    var main = document.getElementById("player");
    var title = [id, me.name, me.title, me.federation].filter(function (x) { return x; }).join("  ");
    main.appendChild(el("h2", title, "player-name"));
    main.appendChild(el("p", "Period " + period + " (rule set " + (sum.rule_set ? sum.rule_set.name : "") + ")"));
    var games = (entry[2] || []).map(function (g) { return record(sum.game_columns, g); });
    var details = entry[3] ? record(sum.detail_columns, entry[3]) : {};
    groupBy(games.filter(function (g) { return g.counted; }), "event_id").forEach(function (block) {
      main.appendChild(eventBlock(block, { me: me, period: period, details: details, sum: sum }));
    });
    var missed = games.filter(function (g) { return !g.counted; });
    if (missed.length) main.appendChild(notCounted(missed, period, sum));
    main.appendChild(totals(games, me, details));
    if (me.status !== "rated") main.appendChild(firstRating(me, details, sum.rule_set));
    main.appendChild(el("p", "* Rating difference of more than 400", "footnote"));
    var only = [store.site.history_periods.indexOf(period), me.rating_before, me.rating, me.change,
      me.status === "new" ? 1 : 0];
    var steady = store.site.history_periods.map(function (p, i) { return [i, me.rating, me.rating, 0, 0]; });
    main.appendChild(chart(entry[1] === 1 ? steady : entry[1] || [only]));
  }

  function groupBy(rows, key) {
    var groups = new Map();
    rows.forEach(function (r) { var k = String(r[key]); if (!groups.has(k)) groups.set(k, []); groups.get(k).push(r); });
    return Array.from(groups.values());
  }

  function table(cls, header, rows) {
    var t = el("table", null, cls), head = el("tr"), body = el("tbody");
    header.forEach(function (h) { head.appendChild(el("th", h)); });
    t.appendChild(el("thead")).appendChild(head);
    rows.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (c) { tr.appendChild(cell(c)); });
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }

  function opponentLink(g, period) {
    var a = el("a", g.opponent_id);
    a.href = playerHref(g.opponent_id, period);
    return a;
  }

  /* The opponent's list columns the list has: [header, field] (a column the list lacks is not shown). */
  function opponentColumns(sum) {
    return [["name", "Name"], ["title", "Title"], ["federation", "Fed"]].filter(function (c) {
      return sum.columns.indexOf(c[0]) >= 0;
    }).map(function (c) { return [c[1], "opponent_" + c[0]]; });
  }

  function eventBlock(games, at) {
    var me = at.me, period = at.period, details = at.details, extra = opponentColumns(at.sum);
    var box = el("section", null, "event"), n = games.length, w = 0, chg = null, kchg = null, rc = 0;
    games.forEach(function (g) {
      w += g.score; rc += g.opponent_rating;
      if (g.expected_score !== null) chg = (chg || 0) + g.score - g.expected_score;
      if (g.k_change !== null) kchg = (kchg || 0) + g.k_change;
    });
    var dates = games.map(function (g) { return g.date || ""; }).sort();
    box.appendChild(el("h3", "Event " + games[0].event_id + "  " + dates[0] + " – " + dates[dates.length - 1]));
    var rated = me.status === "rated";
    box.appendChild(table("event-summary", ["Rc", rated ? "Ro" : "Rp", "w", "n", "chg", "K", "K*chg"], [[
      String(Math.round(rc / n)), text(rated ? games[0].rating : details.performance_rating), String(w), String(n),
      signed(chg, 2), text(games[0].k_used), signed(kchg, 2)]]));
    var header = ["Rd", "", "Opponent"].concat(extra.map(function (c) { return c[0]; }),
      ["Rtg", "Pts", "chg", "K", "K*chg"]);
    box.appendChild(table("games", header,
      games.map(function (g) {
        return [g.round, g.colour === "white" ? "w" : g.colour === "black" ? "b" : "", opponentLink(g, period)].concat(
          extra.map(function (c) { return text(g[c[1]]); }), [
          text(g.opponent_rating) + (g.capped ? " *" : ""), String(g.score),
          g.expected_score === null ? "" : signed(g.score - g.expected_score, 2), text(g.k_used), signed(g.k_change, 2)]);
      })));
    return box;
  }

  function notCounted(games, period, sum) {
    var box = el("section", null, "not-counted"), named = sum.columns.indexOf("name") >= 0;
    box.appendChild(el("h3", "Games not counted"));
    var header = ["Event", "Rd", "Date", "Opponent"].concat(named ? ["Name"] : [], ["Pts", "Reason"]);
    box.appendChild(table("games", header, games.map(function (g) {
      return [g.event_id, g.round, g.date || "", opponentLink(g, period)].concat(named ? [text(g.opponent_name)] : [],
        [g.score === null ? "" : String(g.score), g.reason || g.event_rule || ""]);
    })));
    return box;
  }

  function totals(games, me, details) {
    var kchg = null;
    games.forEach(function (g) { if (g.counted && g.k_change !== null) kchg = (kchg || 0) + g.k_change; });
    return table("totals", ["Rating before", "Games", "Points", "K*chg", "Change", "New rating", "K", "Status"], [[
      me.rating_before === null ? "unrated" : String(me.rating_before), String(me.games), String(details.score === undefined ? "" : details.score),
      signed(kchg, 2), me.change === null ? "" : signed(me.change, 0), me.rating === null ? "unrated" : String(me.rating),
      me.k_used === null || me.k_used === undefined ? "" : String(me.k_used), me.status || ""]]);
  }

  function firstRating(me, details, rules) {
    var box = el("section", null, "first-rating"), first = (rules && rules.first_rating) || {};
    box.appendChild(el("h3", "First rating"));
    var lines = ["Ra (opponents' average): " + (details.opponents_average === undefined ? "" : details.opponents_average),
      "Rp (performance): " + (details.performance_rating === undefined ? "" : details.performance_rating),
      "Games so far: " + (details.games_total === undefined ? "" : details.games_total)];
    if (first.fictitious_games) {
      lines.push("The rule set adds " + first.fictitious_games + " draws against " + first.fictitious_rating +
        " to a first rating's games");
    }
    if (me.status === "new") lines.push("First rating: " + me.rating);
    if (details.pending) lines.push("Earlier months' games (pending): " + details.pending);
    lines.forEach(function (t) { box.appendChild(el("p", t)); });
    return box;
  }

  /* The rating history as inline SVG: the list before the first period, then each period's new list. */
  /* history: [index of the period in site.history_periods, rating before, rating, change, 1 if new]. */
  function chart(history) {
    var points = [];
    history.forEach(function (h, i) {
      var period = store.site.history_periods[h[0]];
      if (i === 0 || points[points.length - 1].list !== period) points.push({ list: period, rating: h[1] });
      points.push({ list: nextMonth(period), rating: h[2], label: h[4] === 1 ? "new" : h[3] ? signed(h[3], 0) : "" });
    });
    var ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
    var rated = points.filter(function (p) { return p.rating !== null; }), W = 640, H = 240, pad = 40;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("class", "history");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "rating history");
    if (!rated.length) return svg;
    var lo = Math.min.apply(null, rated.map(function (p) { return p.rating; })) - 10;
    var hi = Math.max.apply(null, rated.map(function (p) { return p.rating; })) + 10;
    var x = function (i) { return pad + (points.length < 2 ? 0 : i * (W - 2 * pad) / (points.length - 1)); };
    var y = function (r) { return H - pad - (r - lo) * (H - 2 * pad) / (hi - lo); };
    var path = "";
    points.forEach(function (p, i) {
      if (p.rating === null) return;
      path += (path ? " L" : "M") + x(i).toFixed(1) + " " + y(p.rating).toFixed(1);
      var dot = document.createElementNS(ns, "circle");
      dot.setAttribute("cx", x(i)); dot.setAttribute("cy", y(p.rating)); dot.setAttribute("r", 3);
      svg.appendChild(dot);
      svgText(svg, x(i), y(p.rating) - 8, String(p.rating) + (p.label ? " (" + p.label + ")" : ""));
      svgText(svg, x(i), H - pad + 16, p.list);
    });
    var line = document.createElementNS(ns, "path");
    line.setAttribute("d", path);
    svg.insertBefore(line, svg.firstChild);
    return svg;
  }

  function svgText(svg, x, y, text) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", "text");
    node.setAttribute("x", x); node.setAttribute("y", y); node.setAttribute("text-anchor", "middle");
    node.textContent = text;
    svg.appendChild(node);
  }

  function nextMonth(period) {
    var y = Number(period.slice(0, 4)), m = Number(period.slice(5, 7));
    return m === 12 ? (y + 1) + "-01" : y + "-" + String(m + 1).padStart(2, "0");
  }

  function start() {
    if (!store.site) return;
    var run = document.getElementById("player") ? startPlayer : startIndex;
    run().catch(function (e) { document.body.appendChild(el("p", "The report's data could not be read: " + e.message, "error")); });
  }

  document.addEventListener("DOMContentLoaded", start);
  return { put: put, bucket: bucket };
})();
