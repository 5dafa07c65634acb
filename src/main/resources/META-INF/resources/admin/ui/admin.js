// tenant-mq admin UI: a static module over the admin API (docs/operations.md, "Admin web UI").
// The page holds no data of its own: every table comes from /admin/* with the operator's token,
// kept in sessionStorage (this tab only) and sent as "Authorization: Bearer <token>".
// Message identities go in query parameters, encoded here, so any partition key or id works.

const TOKEN_KEY = 'tenant-mq.admin-token';
const TENANT_KEY = 'tenant-mq.tenant';
const ALL = '*';
// Dead-letter topics are "<topic>" + mq.dlq-suffix; the admin API does not expose the suffix,
// so the UI assumes the default.
const DLQ_SUFFIX = '.dlq';
const LIMIT = 1000;
/** Dead letters per page of the DLQ list ("More" reads the next page). */
const DLQ_PAGE = 50;

const $ = (id) => document.getElementById(id);

/** A failed call: the problem+json detail when there is one. */
class ApiError extends Error {
  constructor(status, problem) {
    super(problem && (problem.detail || problem.title) ? `${status} ${problem.title || ''}: ${problem.detail || ''}`
      : `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** The query string of an object, every value percent-encoded (partition keys may hold / % ? # + and emoji). */
function query(params) {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

/** One admin API call; 401/403 forget the token and go back to the login form. */
async function api(method, path, params, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const headers = { Accept: 'application/json, application/problem+json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const qs = params ? query(params) : '';
  const response = await fetch(qs ? `${path}?${qs}` : path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store',
  });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) {
    const error = new ApiError(response.status, json);
    if (path.startsWith('/admin/') && (response.status === 401 || response.status === 403)) {
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin(error.message);
    }
    throw error;
  }
  return json;
}

function showError(message) {
  const e = $('error');
  e.textContent = message;
  e.hidden = !message;
}

function showStatus(message) {
  const s = $('status');
  s.textContent = message;
  s.hidden = !message;
}

function showLogin(message) {
  $('app-view').hidden = true;
  $('session').hidden = true;
  $('login-view').hidden = false;
  showStatus('');
  showError(message || '');
  $('token').value = '';
  $('token').focus();
}

/** The selected scope: {tenant} or {allTenants: true}. */
function scope() {
  const t = sessionStorage.getItem(TENANT_KEY) || ALL;
  return t === ALL ? { allTenants: true } : { tenant: t };
}

function cell(row, text, cls) {
  const td = document.createElement('td');
  td.textContent = text === undefined || text === null ? '' : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

/** Fills a table body; rows is a list of arrays of [text, class?]. */
function fill(tableId, rows, truncated) {
  const table = $(tableId);
  const tbody = table.tBodies[0];
  tbody.replaceChildren();
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell(tr, 'none', 'empty');
    td.colSpan = table.tHead.rows[0].cells.length;
    tbody.appendChild(tr);
  }
  for (const r of rows) {
    const tr = document.createElement('tr');
    for (const c of r) {
      if (c instanceof Node) cell(tr, '').appendChild(c);
      else if (Array.isArray(c)) cell(tr, c[0], c[1]); else cell(tr, c);
    }
    tbody.appendChild(tr);
  }
  const note = table.parentElement.querySelector('.truncated');
  if (note) note.hidden = !truncated;
}

function age(iso) {
  if (!iso) return '';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

/** Tenants for the picker: the ones this process serves (GET /admin/tenants), plus one typed in under "other". */
async function loadTenants() {
  const served = await api('GET', '/admin/tenants');
  const tenants = new Set(served.tenants);
  const current = sessionStorage.getItem(TENANT_KEY) || ALL;
  if (current !== ALL) tenants.add(current);
  const picker = $('tenant-picker');
  picker.replaceChildren(new Option('All tenants', ALL));
  for (const t of tenants) picker.appendChild(new Option(served.tenants.includes(t) ? t : `${t} (not served here)`, t));
  picker.value = current;
}

/** A small button for a table row. */
function button(text, cls, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.className = cls;
  b.addEventListener('click', guarded(onClick));
  return b;
}

async function loadTopics() {
  const page = await api('GET', '/admin/topics', { ...scope(), limit: LIMIT });
  fill('topics-table', page.topics.map((t) => [t.tenant, t.topic, [t.partitions, 'num'], [t.messages, 'num'],
    button('Delete topic…', 'topic-delete danger', () => deleteTopic(t))]), page.truncated);
  const dlq = page.topics.filter((t) => t.topic.endsWith(DLQ_SUFFIX));
  const select = $('dlq-topic');
  fill('dlq-table', dlq.map((t) => [t.tenant, t.topic, [t.partitions, 'num'], [t.messages, t.messages > 0 ? 'num bad' : 'num'],
    button('Show', 'dlq-show', async () => {
      select.value = JSON.stringify([t.tenant, t.topic]);
      await loadDeadLetters(true);
    })]), page.truncated);
  const previous = select.value;
  select.replaceChildren();
  for (const t of dlq) {
    const option = new Option(`${t.tenant} / ${t.topic} (${t.messages})`, JSON.stringify([t.tenant, t.topic]));
    select.appendChild(option);
  }
  if ([...select.options].some((o) => o.value === previous)) select.value = previous;
}

/** Lag, in flight, dead letters and oldest unacknowledged age per (tenant, topic, group). */
async function loadGroups() {
  const page = await api('GET', '/admin/consumer-groups', { ...scope(), limit: LIMIT });
  fill('groups-table', page.consumerGroups.map((g) => [g.tenant, g.topic, g.consumerGroup,
    [g.lag, g.lag > 0 ? 'num bad' : 'num'], [g.inFlight, 'num'], [g.deadLetters, g.deadLetters > 0 ? 'num bad' : 'num'],
    [g.oldestUnackedAgeSeconds, 'num age'],
    button('Delete group…', 'group-delete danger', () => deleteGroup(g)),
    button('Reset…', 'group-reset', async () => openReset(g))]), page.truncated);
}

/** The group the replay form resets ({tenant, topic, consumerGroup}), and the query its last preview answered. */
let resetGroup = null;
let previewed = null;

/** Opens the replay form for one group (docs/operations.md, "Replay: resetting a group's offsets"). */
function openReset(g) {
  resetGroup = { tenant: g.tenant, topic: g.topic, consumerGroup: g.consumerGroup };
  previewed = null;
  $('reset-title').textContent = `${g.consumerGroup} on ${g.tenant} / ${g.topic}`;
  $('reset-apply').disabled = true;
  $('reset-table').hidden = true;
  $('replay').hidden = false;
  $('replay').scrollIntoView();
}

/** The reset's query parameters from the form (without dryRun). */
function resetQuery() {
  const to = $('reset-to').value;
  const q = { ...resetGroup, to };
  if ($('reset-key').value) q.partitionKey = $('reset-key').value;
  if (to === 'offset') q.toOffset = $('reset-offset').value;
  if (to === 'datetime') q.toDatetime = $('reset-datetime').value.trim();
  return q;
}

function showResetTarget() {
  const to = $('reset-to').value;
  $('reset-offset-label').hidden = to !== 'offset';
  $('reset-datetime-label').hidden = to !== 'datetime';
  resetChanged();
}

/** Any change of the form asks for a new preview before a reset. */
function resetChanged() {
  previewed = null;
  $('reset-apply').disabled = true;
}

/** Shows a reset answer (a dry run or the reset itself) per partition. */
function showReset(answer) {
  fill('reset-table', answer.partitions.map((p) => [p.partitionKey, [p.fromOffset, 'num'], [p.toOffset, 'num'],
    [p.nextOffset, 'num'], [p.earliestOffset, 'num'], p.earliestCreatedAt, [p.latestOffset, 'num'],
    p.beforeEarliest ? 'target before the earliest stored message: starts there' : '']), false);
  $('reset-table').hidden = false;
}

/** The dry run: what would move, per partition; enables the reset for exactly these parameters. */
async function previewReset() {
  if (!resetGroup) return;
  const q = resetQuery();
  const answer = await api('POST', '/admin/consumer-groups/reset-offsets', { ...q, dryRun: true });
  showReset(answer);
  previewed = JSON.stringify(q);
  $('reset-apply').disabled = false;
  showStatus(`Dry run: ${answer.partitions.length} partition(s) would move; nothing changed`);
}

/** The reset, after the preview of the same parameters and the in-page confirmation. */
async function applyReset() {
  const q = resetQuery();
  if (previewed !== JSON.stringify(q)) {
    resetChanged();
    showError('Preview (dry run) these parameters first');
    return;
  }
  const rows = $('reset-table').tBodies[0].rows.length;
  const ok = await confirmDialog(`Reset consumer group ${q.consumerGroup} on ${q.tenant} / ${q.topic} to ${q.to}`
    + `${q.toOffset ? ` ${q.toOffset}` : ''}${q.toDatetime ? ` ${q.toDatetime}` : ''} in ${q.partitionKey ? `partition ${q.partitionKey}`
      : `${rows} partition(s)`} as previewed? Its deliveries in flight become STALE.`, 'Reset');
  if (!ok) {
    showStatus('Reset cancelled');
    return;
  }
  const answer = await api('POST', '/admin/consumer-groups/reset-offsets', q);
  showReset(answer);
  resetChanged();
  await refresh();
  showStatus(`Reset ${answer.consumerGroup} on ${answer.topic} to ${answer.to} in ${answer.partitions.length} partition(s)`);
}

/** The dead-letter topic chosen in the DLQ section, as [tenant, topic], or null. */
function chosenDlq() {
  const v = $('dlq-topic').value;
  return v ? JSON.parse(v) : null;
}

/** Where the next page of the DLQ list starts (nextAfterOffset), null when it is complete. */
let dlqNext = null;

/**
 * Lists the chosen dead-letter topic's messages (GET /admin/messages/browse, read-only, paged by
 * offset): the first page when reset, else the next one appended.
 */
async function loadDeadLetters(reset) {
  const chosen = chosenDlq();
  const view = $('dlq-list-view');
  if (!chosen) {
    view.hidden = true;
    return;
  }
  const [tenant, topic] = chosen;
  const params = { tenant, topic, limit: DLQ_PAGE };
  if (!reset && dlqNext !== null) params.afterOffset = dlqNext;
  const page = await api('GET', '/admin/messages/browse', params);
  const tbody = $('dlq-list').tBodies[0];
  if (reset) tbody.replaceChildren();
  for (const m of page.messages) {
    const meta = m.metadata || {};
    const id = { tenant, topic, partitionKey: m.partitionKey, id: m.id };
    const tr = document.createElement('tr');
    tr.dataset.id = m.id;
    for (const [text, cls] of [[m.partitionKey], [m.id], [m.offset, 'num'], [meta.original_topic], [meta.consumer_group],
      [meta.dead_letter_reason], [meta.delivery_attempts, 'num'], [m.createdAt]]) cell(tr, text, cls);
    const actions = cell(tr, '', 'actions');
    actions.append(button('Inspect', 'dl-inspect', () => inspect(id)), button('Requeue', 'dl-requeue', () => requeue(id)),
      button('Delete…', 'dl-delete danger', () => remove(id)));
    tbody.appendChild(tr);
  }
  if (tbody.rows.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, 'none', 'empty').colSpan = $('dlq-list').tHead.rows[0].cells.length;
    tbody.appendChild(tr);
  }
  dlqNext = page.nextAfterOffset;
  $('dlq-more').hidden = dlqNext === null;
  $('dlq-list-title').textContent = `${tenant} / ${topic}`;
  view.hidden = false;
}

/** Partitions listed at once up to this many; more fold into a list that opens on a click. */
const PARTITIONS_SHOWN = 5;

/**
 * A holder's partitions, one per line, sorted: a short list as it is, a longer one folded under
 * its count so that a holder of hundreds of partitions keeps its table row readable.
 */
function partitionList(partitions) {
  const list = document.createElement('ul');
  list.className = 'partitions';
  for (const p of [...partitions].sort()) {
    const li = document.createElement('li');
    li.textContent = p;
    list.appendChild(li);
  }
  if (partitions.length <= PARTITIONS_SHOWN) return list;
  const fold = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = `${partitions.length} partitions`;
  fold.append(summary, list);
  return fold;
}

/** Leases grouped by holder, with the holder's heartbeat. */
async function loadLeases() {
  const [leases, subscribers] = await Promise.all([
    api('GET', '/admin/leases', { ...scope(), limit: LIMIT }),
    api('GET', '/admin/subscribers', { ...scope(), limit: LIMIT }),
  ]);
  const holders = new Map();
  const holder = (tenant, name) => {
    const k = JSON.stringify([tenant, name]);
    if (!holders.has(k)) holders.set(k, { tenant, name, live: null, lastSeen: null, active: 0, stale: 0, partitions: [] });
    return holders.get(k);
  };
  for (const s of subscribers.subscribers) {
    const h = holder(s.tenant, s.subscriberName);
    h.live = h.live || s.live;
    if (!h.lastSeen || s.lastSeenAt > h.lastSeen) h.lastSeen = s.lastSeenAt;
  }
  for (const l of leases.leases) {
    const h = holder(l.tenant, l.leasedBy);
    if (l.active) h.active += 1; else h.stale += 1;
    h.partitions.push(`${l.consumerGroup} / ${l.topic} / ${l.partitionKey}${l.active ? '' : ' (stale)'}`);
  }
  fill('leases-table', [...holders.values()].map((h) => [h.tenant, h.name,
    h.live === null ? ['no heartbeat', 'bad'] : [`${h.live ? 'live' : 'not live'}, ${age(h.lastSeen)}`, h.live ? 'ok' : 'bad'],
    [h.active, 'num'], [h.stale, h.stale > 0 ? 'num bad' : 'num'], partitionList(h.partitions)]),
  leases.truncated || subscribers.truncated);
}

async function refresh() {
  showError('');
  try {
    await loadTenants();
    await Promise.all([loadTopics(), loadGroups(), loadLeases()]);
    await loadDeadLetters(true);
    const t = scope().tenant;
    if (t && !$('publish-tenant').value) $('publish-tenant').value = t;
    $('app-view').dataset.loaded = String(Date.now());
  } catch (e) {
    if (!(e instanceof ApiError && (e.status === 401 || e.status === 403))) showError(e.message);
  }
}

/** The dead letter the operator looked up, as the admin API names it. */
let inspected = null;

function identity() {
  const [tenant, topic] = chosenDlq();
  return { tenant, topic, partitionKey: $('dlq-key').value, id: $('dlq-id').value };
}

async function inspect(m) {
  const message = await api('GET', '/admin/messages', m);
  inspected = m;
  $('message-title').textContent = `${m.tenant} / ${m.topic} / ${m.partitionKey} / ${m.id}`;
  const fields = $('message-fields');
  fields.replaceChildren();
  const meta = message.metadata || {};
  const add = (k, v) => {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd'); dd.textContent = v === undefined || v === null ? '' : String(v);
    dd.dataset.field = k;
    fields.append(dt, dd);
  };
  add('offset', message.offset);
  add('created', message.createdAt);
  if (message.deliverAt) add('due', message.deliverAt);
  add('original topic', meta.original_topic);
  add('dead-lettered by', meta.consumer_group);
  add('reason', meta.dead_letter_reason);
  add('delivery attempts', meta.delivery_attempts);
  $('message-json').textContent = JSON.stringify(message, null, 2);
  $('message-view').hidden = false;
}

function clearInspected() {
  inspected = null;
  $('message-view').hidden = true;
}

/** A confirm dialog in the page (not window.confirm): resolves true on its OK button ("Delete" unless named). */
function confirmDialog(text, okLabel = 'Delete') {
  const dialog = $('confirm-dialog');
  $('confirm-text').textContent = text;
  $('confirm-ok').textContent = okLabel;
  return new Promise((resolve) => {
    const done = (answer) => () => {
      $('confirm-ok').onclick = null;
      $('confirm-cancel').onclick = null;
      dialog.onclose = null;
      dialog.close();
      resolve(answer);
    };
    $('confirm-ok').onclick = done(true);
    $('confirm-cancel').onclick = done(false);
    dialog.onclose = () => resolve(false); // Escape
    dialog.showModal();
  });
}

/** Requeues a dead letter: the one given (a row of the DLQ list) or the one inspected. */
async function requeue(given) {
  const m = given || inspected;
  if (!m) return;
  const done = await api('POST', '/admin/messages/requeue', m);
  clearInspected();
  await refresh();
  showStatus(`Requeued ${done.id} (partition ${done.partitionKey}) to ${done.originalTopic} at offset `
    + `${done.originalOffset} for ${done.consumerGroups.join(', ')}`);
}

/** Deletes a message after the in-page confirmation: the one given (a row of the DLQ list) or the one inspected. */
async function remove(given) {
  const m = given || inspected;
  if (!m) return;
  const ok = await confirmDialog(`Delete message ${m.id} of partition ${m.partitionKey} from ${m.topic} `
    + `(tenant ${m.tenant})? This cannot be undone.`);
  if (!ok) {
    showStatus('Delete cancelled');
    return;
  }
  const done = await api('DELETE', '/admin/messages', m);
  clearInspected();
  await refresh();
  showStatus(`Deleted ${done.id} (partition ${done.partitionKey}, offset ${done.offset}) from ${done.topic}`);
}

/**
 * Repeats an idempotent admin DELETE until it answers done (docs/operations.md, "Deleting a topic
 * or a consumer group"), showing the rows deleted so far; answers their sum per table.
 */
async function deleteUntilDone(path, params, what) {
  const totals = {};
  const add = (rows) => Object.entries(rows || {}).forEach(([k, v]) => { totals[k] = (totals[k] || 0) + v; });
  for (let call = 1; call <= 100000; call++) {
    let answer;
    try {
      answer = await api('DELETE', path, params);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404 && call > 1) break; // finished by another caller
      throw e;
    }
    if (answer.topics) answer.topics.forEach((t) => add(t.deleted)); else add(answer.deleted);
    if (answer.done) break;
    showStatus(`Deleting ${what}: ${summary(totals)} so far…`);
  }
  return totals;
}

/** "messages 3, offsets 2" of the non-zero counts. */
function summary(totals) {
  const parts = Object.entries(totals).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(', ') : 'nothing';
}

/** Deletes a topic (its dead-letter topic stays) after the in-page confirmation. */
async function deleteTopic(t) {
  const ok = await confirmDialog(`Delete topic ${t.topic} of tenant ${t.tenant}: its messages and every consumer `
    + `group's offsets and state on it? Its dead-letter topic stays. Publishes to it are refused until the `
    + `deletion is done. This cannot be undone.`);
  if (!ok) {
    showStatus('Delete cancelled');
    return;
  }
  const totals = await deleteUntilDone('/admin/topics', { tenant: t.tenant, topic: t.topic }, `topic ${t.topic}`);
  clearInspected();
  await refresh();
  showStatus(`Deleted topic ${t.topic} of ${t.tenant}: ${summary(totals)}`);
}

/** Deletes a consumer group's state on one topic after the in-page confirmation. */
async function deleteGroup(g) {
  const ok = await confirmDialog(`Delete consumer group ${g.consumerGroup} of topic ${g.topic} (tenant ${g.tenant}): `
    + `its offsets, deliveries and leases? The messages stay; the group would start again from the oldest one. `
    + `This cannot be undone.`);
  if (!ok) {
    showStatus('Delete cancelled');
    return;
  }
  const totals = await deleteUntilDone('/admin/consumer-groups',
    { tenant: g.tenant, topic: g.topic, consumerGroup: g.consumerGroup }, `group ${g.consumerGroup}`);
  await refresh();
  showStatus(`Deleted consumer group ${g.consumerGroup} of ${g.topic}: ${summary(totals)}`);
}

async function publish(event) {
  event.preventDefault();
  let payload;
  try {
    payload = JSON.parse($('publish-payload').value);
  } catch (e) {
    showError(`Payload is not JSON: ${e.message}`);
    return;
  }
  const message = { partitionKey: $('publish-key').value, payload };
  if ($('publish-id').value) message.id = $('publish-id').value;
  // Delayed delivery (docs/api.md, "Delayed delivery"): the service checks the number and its bound.
  if ($('publish-delay').value !== '') message.deliverAfterSeconds = Number($('publish-delay').value);
  const tenant = $('publish-tenant').value;
  const topic = $('publish-topic').value;
  const path = `/tenants/${encodeURIComponent(tenant)}/topics/${encodeURIComponent(topic)}/messages`;
  const answer = await api('POST', path, null, { messages: [message] });
  const r = answer.messages[0];
  await refresh();
  showStatus(`Published to ${tenant} / ${topic}: ${r.id} at offset ${r.offset}${r.duplicate ? ' (duplicate)' : ''}`);
}

// ---- Per-topic and per-group settings (docs/settings.md, "Per-topic and per-group settings").
const SETTINGS = [
  ['maxDeliveries', 'int'], ['defaultVisibilitySeconds', 'int'], ['maxVisibilitySeconds', 'int'],
  ['nackBackoffBaseMillis', 'int'], ['nackBackoffCapMillis', 'int'], ['retentionMaxAgeSeconds', 'int'],
  ['dedupWindowSeconds', 'int'], ['deadLetterEnabled', 'bool'],
];

function settingsTarget() {
  const group = $('settings-group').value.trim();
  return { tenant: $('settings-tenant').value.trim(), topic: $('settings-topic').value.trim(),
    consumerGroup: group || undefined };
}

/** Shows a settings answer: effective value, source, and an input for this level's override. */
function showSettings(s) {
  const level = s.consumerGroup ? s.groupOverrides : s.topicOverrides;
  const tbody = $('settings-table').querySelector('tbody');
  tbody.replaceChildren();
  for (const [name, kind] of SETTINGS) {
    const row = tbody.insertRow();
    cell(row, name);
    cell(row, String(s.effective[name].value), 'num');
    cell(row, s.effective[name].source);
    const input = document.createElement(kind === 'bool' ? 'select' : 'input');
    input.id = `setting-${name}`;
    input.setAttribute('aria-label', `${name} override`);
    const current = level[name];
    if (kind === 'bool') {
      for (const v of ['', 'true', 'false']) input.add(new Option(v === '' ? '(inherit)' : v, v));
      input.value = current === null || current === undefined ? '' : String(current);
    } else {
      input.type = 'number';
      input.placeholder = 'inherit';
      input.value = current === null || current === undefined ? '' : String(current);
    }
    row.insertCell().append(input);
  }
  $('settings-view').hidden = false;
}

async function loadSettings() {
  showSettings(await api('GET', '/admin/settings', settingsTarget()));
}

async function saveSettings() {
  const body = {};
  for (const [name, kind] of SETTINGS) {
    const v = $(`setting-${name}`).value.trim();
    body[name] = v === '' ? null : (kind === 'bool' ? v === 'true' : Number(v));
  }
  const target = settingsTarget();
  showSettings(await api('PUT', '/admin/settings', target, body));
  showStatus(`Saved the overrides of ${target.consumerGroup ? `group ${target.consumerGroup} on ` : ''}${target.topic}`);
}

async function clearSettings() {
  const target = settingsTarget();
  const ok = await confirmDialog(`Clear every override of ${target.consumerGroup ? `group ${target.consumerGroup} on ` : ''}`
    + `topic ${target.topic} (tenant ${target.tenant})? Its settings fall back to the ${target.consumerGroup ? 'topic' : 'global'} ones.`);
  if (!ok) {
    showStatus('Clear cancelled');
    return;
  }
  showSettings(await api('DELETE', '/admin/settings', target));
  showStatus(`Cleared the overrides of ${target.topic}`);
}

/** Runs a UI action, showing its error (problem detail) instead of losing it. */
function guarded(action) {
  return async (event) => {
    if (event && event.preventDefault) event.preventDefault();
    showError('');
    showStatus('');
    try {
      await action(event);
    } catch (e) {
      if (!(e instanceof ApiError && (e.status === 401 || e.status === 403) && $('app-view').hidden)) {
        showError(e.message);
      }
    }
  };
}

function start() {
  $('login-form').addEventListener('submit', guarded(async () => {
    sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
    // Check the token before showing anything: a 401/403 comes back to this form with its detail.
    await api('GET', '/admin/topics', { allTenants: true, limit: 1 });
    $('login-view').hidden = true;
    $('session').hidden = false;
    $('app-view').hidden = false;
    await refresh();
  }));
  $('tenant-picker').addEventListener('change', guarded(async () => {
    sessionStorage.setItem(TENANT_KEY, $('tenant-picker').value);
    $('publish-tenant').value = scope().tenant || '';
    clearInspected();
    await refresh();
  }));
  $('tenant-use').addEventListener('click', guarded(async () => {
    const t = $('tenant-other').value.trim();
    if (!t) return;
    sessionStorage.setItem(TENANT_KEY, t);
    $('publish-tenant').value = t;
    clearInspected();
    await refresh();
  }));
  $('refresh').addEventListener('click', guarded(refresh));
  $('logout').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin('');
  });
  $('dlq-form').addEventListener('submit', guarded(() => inspect(identity())));
  $('requeue').addEventListener('click', guarded(() => requeue()));
  $('delete').addEventListener('click', guarded(() => remove()));
  $('dlq-topic').addEventListener('change', guarded(() => loadDeadLetters(true)));
  $('dlq-more').addEventListener('click', guarded(() => loadDeadLetters(false)));
  $('publish-form').addEventListener('submit', guarded(publish));
  $('settings-form').addEventListener('submit', guarded(loadSettings));
  $('settings-save').addEventListener('click', guarded(saveSettings));
  $('settings-clear').addEventListener('click', guarded(clearSettings));
  $('reset-form').addEventListener('submit', guarded(previewReset));
  $('reset-apply').addEventListener('click', guarded(applyReset));
  $('reset-to').addEventListener('change', showResetTarget);
  for (const id of ['reset-offset', 'reset-datetime', 'reset-key']) $(id).addEventListener('input', resetChanged);
  $('reset-close').addEventListener('click', () => {
    resetGroup = null;
    $('replay').hidden = true;
  });

  if (sessionStorage.getItem(TOKEN_KEY)) {
    $('login-view').hidden = true;
    $('session').hidden = false;
    $('app-view').hidden = false;
    refresh();
  } else {
    showLogin('');
  }
}

start();
