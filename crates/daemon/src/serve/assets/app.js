// The control room's page: vanilla JS, no dependencies. Every string from the hub is put in
// the page as text (textContent), never as HTML.
'use strict';

const $ = (s) => document.querySelector(s);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) {
    if (k === null || k === undefined) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}
const svg = (tag, attrs) => {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
};
function status(text, bad) {
  const s = $('#status');
  s.textContent = text;
  s.className = bad ? 'err' : '';
}
async function api(path) {
  const r = await fetch(path, { credentials: 'same-origin' });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.status + ' ' + r.statusText);
  return body;
}
async function post(path, body, headers) {
  const r = await fetch(path, {
    method: 'POST', credentials: 'same-origin',
    headers: Object.assign({ 'Content-Type': 'application/json' }, headers || {}), body: JSON.stringify(body || {}),
  });
  const out = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(out.error || r.status + ' ' + r.statusText), { status: r.status });
  return out;
}
const fill = (tbody, rows) => { tbody.replaceChildren(...rows); };
const when = (t) => (t ? String(t).replace('T', ' ').replace(/\.\d+/, '').replace(/(\+00:00|Z)$/, ' UTC') : '');
const num = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en'));

// ---- The banner: a change to cn.yaml the daemon refused (it runs on its previous config)
function banner(d) {
  const why = d.daemon && d.daemon.running && d.daemon.info ? d.daemon.info.config_error : null;
  const b = $('#banner');
  b.hidden = !why;
  b.textContent = why ? 'cn.yaml was changed, but the daemon could not take it and runs on its previous config: ' + why : '';
}
async function refreshBanner() { banner(await api('/api/now')); }

// ---- Now
async function showNow() { renderNow(await api('/api/now')); }
function renderNow(d) {
  banner(d);
  $('#hub-name').textContent = d.hub;
  const dm = d.daemon;
  $('#now-daemon').replaceChildren(dm.running
    ? el('div', {}, el('b', {}, 'running'), ' pid ', dm.info && dm.info.pid, el('div', { class: 'mute' }, 'since ', when(dm.info && dm.info.started)))
    : el('div', {}, el('b', {}, 'not running'), el('div', { class: 'mute' }, 'start it with cn run')),
  el('div', { class: 'mute' }, d.inbox, ' item(s) in the inbox'));
  const c = d.current;
  $('#now-current').replaceChildren(c
    ? el('div', { id: 'current-item', 'data-id': c.id }, el('div', {}, c.text), el('div', { class: 'mute' }, 'from ', c.from, ' · ', c.id, c.level !== null ? ' · level ' + c.level : ''))
    : el('div', { class: 'mute' }, 'nothing is being worked on'));
  $('#now-models').replaceChildren(...(d.models.length ? d.models : [{ level: 2, provider: 'none' }]).map((m) =>
    el('div', {}, 'L', m.level, ': ', m.provider || '—', m.model ? ' · ' + m.model : '')));
  fill($('#now-pool tbody'), d.pool.length ? d.pool.map((p) => el('tr', { 'data-id': p.id },
    el('td', {}, Number(p.salience).toFixed(1)), el('td', {}, p.source, p.owner ? ' (owner)' : ''),
    el('td', {}, p.summary, p.merged ? el('span', { class: 'mute' }, ' +' + p.merged + ' coalesced') : ''),
    el('td', { class: 'mute' }, p.explanation))) : [el('tr', {}, el('td', { colspan: 4, class: 'mute' }, 'the pool is empty'))]);
  const tasks = (sel, rows, none) => fill($(sel), rows.length
    ? rows.map((t) => el('li', { 'data-id': t.id || '' }, el('span', { class: 'mute' }, when(t.at)), ' ', t.what,
      t.source ? el('span', { class: 'mute' }, ' (for ' + t.source + ')') : '', t.reminded ? el('span', { class: 'mute' }, ' · reminded') : ''))
    : [el('li', { class: 'mute' }, none)]);
  const r = d.routine || { next: [], overdue: [], done_today: [] };
  tasks('#now-next', r.next, 'nothing due');
  tasks('#now-overdue', r.overdue, 'nothing overdue');
  tasks('#now-done', r.done_today, 'nothing done yet today');
  fill($('#now-due tbody'), d.due.length ? d.due.map((x) => el('tr', {},
    el('td', {}, when(x.at)), el('td', {}, x.kind), el('td', {}, x.what, x.cron ? el('span', { class: 'mute' }, ' (' + x.cron + ')') : '')))
    : [el('tr', {}, el('td', { colspan: 3, class: 'mute' }, 'nothing is due'))]);
  fill($('#now-recent tbody'), d.recent.length ? d.recent.map((r) => el('tr', { 'data-id': r.id, onclick: () => { show('journal'); showWhy(r.id); } },
    el('td', {}, when(r.ts)), el('td', {}, r.from || ''), el('td', {}, r.summary || r.id)))
    : [el('tr', {}, el('td', { colspan: 3, class: 'mute' }, 'nothing decided yet'))]);
}

// ---- Journal
const journal = { entries: [], offset: 0, source: null, types: new Set(), sources: new Set() };
const entrySource = (e) => e.source || (e.data && e.data.source) || e.sender || e.from || '';
const entryLevel = (e) => (e.level === undefined || e.level === null ? '' : String(e.level));
function entrySummary(e) {
  if (e.summary) return e.summary;
  const bits = [];
  for (const k of ['name', 'action', 'tool', 'outcome', 'reflex', 'pattern']) if (e[k] && typeof e[k] !== 'object') bits.push(k + ' ' + e[k]);
  return bits.join(' · ') || JSON.stringify(e).slice(0, 160);
}
function matches(e) {
  const t = $('#f-type').value, s = $('#f-source').value, l = $('#f-level').value, q = $('#f-text').value.toLowerCase();
  return (!t || e.type === t) && (!s || entrySource(e) === s) && (!l || entryLevel(e) === l) &&
    (!q || JSON.stringify(e).toLowerCase().includes(q));
}
function entryRow(e, fresh) {
  const li = el('li', { class: 'entry' + (fresh ? ' new' : ''), 'data-id': e.id || '', 'data-type': e.type || '' },
    el('span', { class: 'ts' }, when(e.ts)), el('span', { class: 'tag ' + (e.type || '') }, e.type || '?'),
    entryLevel(e) !== '' ? el('span', { class: 'tag' }, 'L' + entryLevel(e)) : '', entrySummary(e));
  li.addEventListener('click', () => { document.querySelectorAll('#journal-list li.sel').forEach((x) => x.classList.remove('sel')); li.classList.add('sel'); showWhy(e.id); });
  return li;
}
function noteFilters(e) {
  const add = (set, sel, v) => { if (v && !set.has(v)) { set.add(v); $(sel).append(el('option', {}, v)); } };
  add(journal.types, '#f-type', e.type);
  add(journal.sources, '#f-source', entrySource(e));
}
function renderJournal() {
  const shown = journal.entries.filter(matches).slice(-500).reverse();
  $('#journal-list').replaceChildren(...shown.map((e) => entryRow(e, false)));
}
async function loadJournal() { startJournal(await api('/api/journal')); }
function startJournal(d) {
  journal.entries = d.entries;
  journal.offset = d.offset;
  d.entries.forEach(noteFilters);
  renderJournal();
  live();
}
let refreshTimer = null;
function live() {
  if (journal.source) journal.source.close();
  const src = new EventSource('/api/events?from=' + journal.offset);
  journal.source = src;
  const state = (cls, text) => { const l = $('#live'); l.className = 'live ' + cls; l.textContent = text; };
  src.onopen = () => state('on', 'live');
  src.onerror = () => state('off', 'offline (reconnecting)');
  src.addEventListener('entry', (ev) => {
    let e;
    try { e = JSON.parse(ev.data); } catch (_) { return; }
    journal.entries.push(e);
    if (journal.entries.length > 5000) journal.entries.shift();
    noteFilters(e);
    if (matches(e)) $('#journal-list').prepend(entryRow(e, true));
    // Other views follow the journal: refresh the one on screen (and the banner), at most
    // once a second.
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      if (current !== 'journal' && current !== 'chat') show(current);
      if (current !== 'now') refreshBanner().catch(() => {});
    }, 500);
  });
}
async function showWhy(id) {
  const box = $('#why');
  if (!id) { box.replaceChildren(el('p', { class: 'hint' }, 'this entry belongs to no item')); return; }
  const d = await api('/api/why/' + encodeURIComponent(id));
  box.replaceChildren(el('h2', {}, 'Why: ', id),
    el('ol', { id: 'why-chain' }, ...d.chain.map((e) => el('li', {},
      el('div', {}, el('span', { class: 'tag ' + e.type }, e.type), entrySummary(e)),
      el('div', { class: 'mute' }, when(e.ts)),
      ...['context', 'reasoning', 'outcome', 'error'].filter((k) => typeof e[k] === 'string').map((k) => el('div', {}, el('b', {}, k + ': '), e[k])),
      e.params ? el('pre', {}, JSON.stringify(e.params, null, 1)) : ''))),
    el('h2', {}, 'Commit'),
    d.commits.length ? el('ul', { id: 'why-commits' }, ...d.commits.map((c) => el('li', {}, el('code', {}, c)))) : el('p', { class: 'mute' }, 'no commit recorded this item'));
}

// ---- Thought and money
async function showMoney() {
  const d = await api('/api/money');
  if (d.error) throw new Error(d.error);
  const t = d.today;
  const left = d.cap_tokens !== null && d.cap_tokens !== undefined ? Math.max(0, d.cap_tokens - t.tokens - d.reserved_tokens) : null;
  $('#money-today').replaceChildren(
    el('div', {}, el('b', { id: 'tokens-today' }, num(t.tokens)), ' executive tokens', d.cap_tokens ? ' of ' + num(d.cap_tokens) : ''),
    el('div', {}, '$', Number(t.cost).toFixed(4), d.cap_cost ? ' of $' + Number(d.cap_cost).toFixed(2) : ''),
    el('div', { id: 'budget-left' }, 'left today: ', left === null ? 'no cap' : num(left) + ' tokens'),
    el('div', { class: 'mute' }, t.calls, ' calls, ', t.refused, ' refused, ', t.failed, ' failed · ', d.in_flight, ' in flight'));
  const levels = Object.entries(d.levels);
  const total = levels.reduce((a, [, n]) => a + n, 0);
  $('#money-levels').replaceChildren(...(total ? levels.map(([l, n]) => el('div', { 'data-level': l }, 'L', l, ': ', n, ' (', Math.round(100 * n / total), '%)')) : [el('div', { class: 'mute' }, 'no items decided yet today')]),
    ...(d.handed_up ? [el('div', { class: 'mute', id: 'handed-up' }, 'handed up: ', d.handed_up)] : []));
  const saved = Object.entries(d.saved).filter(([, [runs]]) => runs > 0);
  const savedTotal = saved.reduce((a, [, [, tok]]) => a + tok, 0);
  $('#money-saved').replaceChildren(...(d.call_tokens == null
    ? [el('div', { class: 'mute', id: 'tokens-saved' }, 'none claimed: no executive call measured yet')]
    : [el('div', {}, el('b', { id: 'tokens-saved' }, num(savedTotal)), ' tokens (at ', num(d.call_tokens), ' a call, measured)'),
      ...saved.map(([name, [runs, tok]]) => el('div', { class: 'mute' }, name, ': ', runs, ' answered, ', num(tok)))]));
  chart([...d.history, t].slice(-30));
}
function chart(days) {
  const W = 720, H = 240, P = 36, bw = Math.max(4, Math.min(40, (W - 2 * P) / Math.max(days.length, 1) - 4));
  const maxT = Math.max(1, ...days.map((d) => d.tokens)), maxC = Math.max(0.0001, ...days.map((d) => d.cost));
  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': 'executive tokens and cost per day' });
  s.append(svg('line', { x1: P, y1: H - P, x2: W - P, y2: H - P, class: 'axis' }));
  const tl = svg('text', { x: 4, y: 14, class: 'lbl' }); tl.textContent = 'tokens (bars) · max ' + maxT.toLocaleString('en') + ' · cost (line) · max $' + maxC.toFixed(4); s.append(tl);
  const step = (W - 2 * P) / Math.max(days.length, 1);
  const pts = [];
  days.forEach((d, i) => {
    const x = P + i * step + (step - bw) / 2, h = (H - 2 * P) * d.tokens / maxT;
    const r = svg('rect', { x, y: H - P - h, width: bw, height: Math.max(h, 0), class: 'bar', 'data-day': d.day, 'data-tokens': d.tokens, 'data-cost': d.cost });
    const tip = svg('title', {}); tip.textContent = `${d.day}: ${d.tokens} tokens, $${Number(d.cost).toFixed(4)}, ${d.calls} calls`; r.append(tip);
    s.append(r);
    pts.push(`${x + bw / 2},${H - P - (H - 2 * P) * d.cost / maxC}`);
    if (days.length <= 14 || i % Math.ceil(days.length / 10) === 0) {
      const lb = svg('text', { x: x, y: H - P + 14, class: 'lbl' }); lb.textContent = String(d.day).slice(5); s.append(lb);
    }
  });
  if (pts.length > 1) s.append(svg('polyline', { points: pts.join(' '), class: 'costline' }));
  $('#chart').replaceChildren(s);
}

// ---- Reflexes
async function showReflexes() {
  const d = await api('/api/reflexes');
  fill($('#reflex-table tbody'), d.reflexes.map((r) => {
    const on = r.status === 'enabled';
    return el('tr', { 'data-name': r.name, title: r.description || '' },
      el('td', {}, r.name), el('td', {}, r.level), el('td', {}, r.trigger), el('td', {}, r.fired), el('td', {}, r.succeeded),
      el('td', {}, r.failed), el('td', {}, r.escalated), el('td', {}, r.fired ? Number(r.latency_ms_p50).toFixed(1) : '—'),
      el('td', { class: 'status' }, r.status, r.disabled ? el('div', { class: 'mute' }, r.disabled.reason) : ''),
      el('td', { class: 'mode' }, r.mode, r.learned ? el('div', { class: 'mute' }, 'learned: ' + r.learned) : ''),
      el('td', { class: 'agreement' }, r.compared ? `${r.agreed}/${r.compared}` : '—', r.promotion_refused ? el('div', { class: 'mute' }, r.promotion_refused) : ''),
      el('td', {}, r.tokens_saved == null ? '-' : r.tokens_saved),
      el('td', {}, el('button', { class: 'act switch', onclick: () => act(`/api/reflexes/${encodeURIComponent(r.name)}/${on ? 'disable' : 'enable'}`, showReflexes) }, on ? 'disable' : 'enable'),
        r.mode === 'shadow' ? el('button', { class: 'act approve', onclick: () => act(`/api/reflexes/${encodeURIComponent(r.name)}/approve`, showReflexes) }, 'approve') : ''));
  }));
  $('#reflex-errors').replaceChildren(...d.errors.map((e) => el('p', { class: 'err' }, e)));
}
async function act(path, then) {
  try { await post(path); status('done: ' + path); } catch (e) { status(e.message, true); }
  await then();
}

// ---- Approvals
async function showApprovals() {
  const d = await api('/api/approvals');
  const pending = d.approvals.filter((a) => a.status === 'pending');
  $('#approvals-count').textContent = pending.length || '';
  $('#approval-list').replaceChildren(...(d.approvals.length ? d.approvals.map((a) => el('div', { class: 'approval' + (a.status === 'pending' ? '' : ' decided'), 'data-id': a.id },
    el('div', {}, el('b', {}, a.tool), ' · ', el('span', { class: 'approval-status' }, a.status), a.item ? el('span', { class: 'mute' }, ' · for item ' + a.item) : '', a.from ? el('span', { class: 'mute approval-from' }, ' · from ' + a.from) : ''),
    el('div', { class: 'mute' }, 'what approving runs, exactly:'), el('pre', { class: 'runs' }, a.runs),
    a.remembers ? el('div', { class: 'mute' }, 'always allow would remember: ', a.remembers) : '',
    a.decided ? el('div', { class: 'mute' }, 'decided: ', a.decided) : '',
    a.status === 'pending' ? el('div', {},
      el('button', { class: 'act approve', onclick: () => act(`/api/approvals/${encodeURIComponent(a.id)}/approve`, showApprovals) }, 'Approve'), ' ',
      el('button', { class: 'act deny', onclick: () => act(`/api/approvals/${encodeURIComponent(a.id)}/deny`, showApprovals) }, 'Deny')) : ''))
    : [el('p', { class: 'mute' }, 'nothing waits for your approval')]));
}

// ---- Peers and loops
async function showPeers() {
  const d = await api('/api/peers');
  $('#peer-info').replaceChildren(
    el('h2', {}, 'Peers'),
    d.peers.length ? el('table', {}, el('tbody', {}, ...d.peers.map((p) => el('tr', {}, el('td', {}, p.name), el('td', { class: 'mute' }, p.remote || p.error))))) : el('p', { class: 'mute' }, 'no peers (cn peer add NAME REMOTE)'),
    el('p', {}, 'mail waiting to go out: ', d.outbox, ' · sent: ', d.sent),
    el('h2', {}, 'Syncs that moved mail'),
    d.syncs.length ? el('table', {}, el('tbody', {}, ...d.syncs.map((s) => el('tr', {}, el('td', {}, when(s.ts)), el('td', {}, 'in: ', (s.received || []).length, ' · out: ', (s.sent || []).length, ' · rejected: ', (s.rejected || []).length))))) : el('p', { class: 'mute' }, 'none yet'));
}
let loopsTimer = null;
async function showLoops() {
  const d = await api('/api/loops');
  $('#loop-list').replaceChildren(...(d.loops.length ? d.loops.map((l) => el('div', { class: 'card' },
    el('h2', {}, l.dir, l.status ? ' · ' + l.status : '', l.iteration !== undefined ? ' · iteration ' + l.iteration : '',
      l.progress && l.progress.running ? el('span', { class: 'running' }, ' · running') : ''),
    l.error ? el('p', { class: 'err' }, l.error) : '',
    l.progress && l.progress.lines.length ? [el('div', { class: 'mute' }, l.progress.running ? 'this run, as it goes:' : 'the last run:'), el('pre', { class: 'progress' }, l.progress.lines.join('\n'))] : '',
    l.iterations ? el('table', {}, el('tbody', {}, ...l.iterations.map((i) => el('tr', {}, el('td', {}, i.iteration), el('td', {}, el('code', {}, String(i.commit).slice(0, 10))), el('td', {}, i.status), el('td', { class: 'mute' }, i.body))))) : '',
    l.sensor ? [el('div', { class: 'mute' }, 'sensor output:'), el('pre', {}, l.sensor)] : ''))
    : [el('p', { class: 'mute' }, 'no loop here (a directory of the hub with a loop-run/: cn loop init DIR)')]));
  // Follow a running loop: read it again every 2 s while this view is shown.
  clearTimeout(loopsTimer);
  if (d.loops.some((l) => l.progress && l.progress.running)) {
    loopsTimer = setTimeout(() => { if (current === 'loops') showLoops().catch(() => {}); }, 2000);
  }
}

// ---- Chat
function chatPair(m) {
  const me = el('li', { class: 'me' }, m.text);
  const reply = el('li', { class: 'agent' + (m.answer === null ? ' pending' : ''), 'data-id': m.id }, m.answer === null ? '… waiting' : m.answer);
  return [me, reply];
}
let chatLoaded = false;
async function showChat() {
  if (!chatLoaded) {
    const d = await api('/api/chat/history');
    $('#chat-log').prepend(...d.history.flatMap(chatPair));
    chatLoaded = true;
    for (const m of d.history.filter((x) => x.answer === null)) waitAnswer(m.id, $(`#chat-log li.agent[data-id="${CSS.escape(m.id)}"]`));
  }
  $('#chat-text').focus();
}
async function waitAnswer(id, reply) {
  for (let i = 0; i < 600; i++) {
    await new Promise((ok) => setTimeout(ok, 1000));
    const a = await api('/api/answer/' + encodeURIComponent(id));
    if (a.decided) { reply.textContent = a.answer; reply.classList.remove('pending'); return; }
  }
  reply.textContent = 'no answer yet; it stays queued as ' + id;
}
async function sendChat(ev) {
  ev.preventDefault();
  const input = $('#chat-text');
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  $('#chat-log').append(el('li', { class: 'me' }, text));
  const reply = el('li', { class: 'agent pending' }, '…');
  $('#chat-log').append(reply);
  // One key a message: sent again (a 503 from a leased hub not yet sure origin holds it, a
  // lost answer), it is the same message and is decided once.
  const key = 'room-' + Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    let r;
    for (let tries = 1; ; tries++) {
      try {
        r = await post('/api/chat', { text }, { 'Idempotency-Key': key });
        break;
      } catch (e) {
        if (tries >= 4 || (e.status && e.status !== 503)) throw e;
        reply.textContent = '… not confirmed yet; sending it again (' + tries + ')';
        await new Promise((ok) => setTimeout(ok, 1000 * tries));
      }
    }
    reply.setAttribute('data-id', r.accepted);
    if (r.note) reply.textContent = '… ' + r.note;
    await waitAnswer(r.accepted, reply);
  } catch (e) { reply.textContent = e.message; reply.className = 'agent err'; }
}

// ---- Tabs
const views = { now: showNow, journal: async () => renderJournal(), money: showMoney, reflexes: showReflexes, approvals: showApprovals, peers: showPeers, loops: showLoops, chat: showChat };
let current = 'now';
async function show(name) {
  current = name;
  document.querySelectorAll('#tabs button').forEach((b) => b.classList.toggle('on', b.dataset.view === name));
  document.querySelectorAll('.view').forEach((v) => v.classList.toggle('on', v.id === name));
  if (location.hash !== '#' + name) history.replaceState(null, '', '#' + name);
  try {
    await views[name]();
    if (!performance.getEntriesByName('cn-shown').length) performance.mark('cn-shown');
    document.body.setAttribute('data-shown', name);
  } catch (e) { status(e.message, true); }
}
// Deferred: the document is parsed when this runs; `/boot/now.js` ran before it and
// `/boot/journal.js` runs after it, both before the load event (see the page's head).
let journalStarted = false;
window.cnBootJournal = (d) => { if (!journalStarted) { journalStarted = true; startJournal(d); } };
(function init() {
  document.querySelectorAll('#tabs button').forEach((b) => b.addEventListener('click', () => show(b.dataset.view)));
  for (const id of ['#f-type', '#f-source', '#f-level', '#f-text']) $(id).addEventListener('input', renderJournal);
  $('#chat-form').addEventListener('submit', sendChat);
  const first = views[location.hash.slice(1)] ? location.hash.slice(1) : 'now';
  showApprovals().catch(() => {});
  const boot = window.cnBootNow;
  if (boot && first === 'now') {
    current = 'now';
    renderNow(boot);
    performance.mark('cn-shown');
    document.body.setAttribute('data-shown', 'now');
  } else {
    if (boot) banner(boot);
    show(first);
  }
  // Its data script did not come (an error): ask for the timeline.
  window.addEventListener('load', () => {
    if (!journalStarted) { journalStarted = true; loadJournal().catch((e) => status(e.message, true)); }
  });
})();
