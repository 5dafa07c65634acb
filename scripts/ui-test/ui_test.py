"""Browser test of the admin web UI (docs/operations.md, "Admin web UI"), run by scripts/ui-test.sh.

Drives Debian's headless Chromium with Playwright against the packaged jar: logs in, picks a
tenant from the served ones, publishes through the UI's form, dead-letters a message through the
data-plane API, sees the consumer group's lag, dead letters and oldest age, finds the dead letter
in the DLQ list and inspects and requeues it from there, deletes another one from the list
through the confirmation dialog, and checks that a wrong token shows the problem's detail. Each step is checked in the page and,
where the UI changed state, through the admin API too. Screenshots go to target/ui-screenshots.

Usage: ui_test.py BASE_URL ADMIN_TOKEN SCREENSHOT_DIR
"""
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import expect, sync_playwright

expect.set_options(timeout=15000)

BASE, TOKEN, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
TENANT = "ui-demo"
OTHER_TENANT = "ui-other"
TOPIC = "orders"
DLQ = "orders.dlq"
GROUP = "billing"
# A partition key with the characters that break hand-built URLs: / % ? # + & = space, and emoji.
KEY = "order/42 %?#+&=ü 🚀"
WRONG_TOKEN = "wrong-token-0123456789"


def call(method, path, params=None, body=None, token=TOKEN):
    """One HTTP call; returns (status, parsed JSON or None)."""
    url = BASE + path + ("?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote) if params else "")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            text = r.read().decode()
            return r.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        return e.code, json.loads(text) if text else None


def ok(method, path, params=None, body=None):
    status, answer = call(method, path, params, body)
    assert 200 <= status < 300, f"{method} {path} {params}: {status} {answer}"
    return answer


def fetch_one(topic, group):
    """The next delivery of the group (long poll), or fail."""
    for _ in range(6):
        answer = ok("POST", f"/tenants/{TENANT}/topics/{topic}/consumer-groups/{group}/fetch",
                    body={"maxMessages": 1, "waitSeconds": 5})
        if answer["messages"]:
            return answer["messages"][0]
    raise AssertionError(f"{group} got nothing from {topic}")


def dead_letter(expected_id):
    """Fetch + nack (the service runs with mq.max-deliveries=1): the message moves to orders.dlq."""
    m = fetch_one(TOPIC, GROUP)
    assert (m["partitionKey"], m["id"]) == (KEY, expected_id), m
    answer = ok("POST", f"/tenants/{TENANT}/topics/{TOPIC}/consumer-groups/{GROUP}/nack",
                body={"receipts": [m["receipt"]], "delaySeconds": 0, "reason": "ui test: cannot parse"})
    assert answer["results"][0]["status"] == "NACKED", answer
    dlq = identity(DLQ, expected_id)
    status, _ = call("GET", "/admin/messages", dlq)
    assert status == 200, f"no dead letter {expected_id} in {DLQ}: {status}"


def identity(topic, message_id):
    return {"tenant": TENANT, "topic": topic, "partitionKey": KEY, "id": message_id}


def shot(page, name):
    path = os.path.join(SHOTS, name + ".png")
    page.screenshot(path=path, full_page=True)
    print("screenshot", path)


def main():
    os.makedirs(SHOTS, exist_ok=True)
    # Another tenant with a topic, so that the picker has a choice to make.
    ok("POST", f"/tenants/{OTHER_TENANT}/topics/audit/messages",
       body={"messages": [{"partitionKey": "a", "id": "x-1", "payload": 1}]})
    # What the UI must show on a wrong token: the admin API's own problem detail.
    status, problem = call("GET", "/admin/topics", {"allTenants": "true"}, token=WRONG_TOKEN)
    assert status == 401 and problem["detail"], (status, problem)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            steps(browser, page, problem)
        except BaseException:
            shot(page, "failure")  # the page as it was when a step failed
            raise
    print("ui-test: all steps passed")


def steps(browser, page, problem):
    """The steps of the test, in one browser page."""
    page.set_default_timeout(15000)
    browser_errors = []
    failed_loads = []
    # Script errors and CSP violations ("Refused to ..."); failed loads are checked by URL below.
    page.on("console", lambda m: browser_errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda e: browser_errors.append(str(e)))
    page.on("response", lambda r: failed_loads.append((r.status, urllib.parse.urlsplit(r.url).path))
            if r.status >= 400 else None)

    # The shell: served on the API port with the CSP; /admin/ui redirects to /admin/ui/.
    response = page.goto(BASE + "/admin/ui")
    assert response.status == 200 and page.url == BASE + "/admin/ui/", (response.status, page.url)
    assert "script-src 'self'" in response.headers["content-security-policy"], response.headers
    expect(page.locator("#login-view")).to_be_visible()

    # 1. A wrong token: the problem's detail, and the login form again.
    page.fill("#token", WRONG_TOKEN)
    page.click("#login")
    expect(page.locator("#error")).to_contain_text(problem["detail"])
    expect(page.locator("#error")).to_contain_text("401")
    expect(page.locator("#login-view")).to_be_visible()
    expect(page.locator("#app-view")).to_be_hidden()
    expect(page.locator("#session")).to_be_hidden()
    assert page.evaluate("sessionStorage.getItem('tenant-mq.admin-token')") is None
    shot(page, "01-wrong-token")

    # 2. Log in: the token goes to sessionStorage only, never localStorage or a cookie.
    page.fill("#token", TOKEN)
    page.click("#login")
    expect(page.locator("#app-view")).to_be_visible()
    expect(page.locator("#topics-table")).to_contain_text(OTHER_TENANT)
    assert page.evaluate("sessionStorage.getItem('tenant-mq.admin-token')") == TOKEN
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []

    # 3. The picker offers all tenants and the served ones (MQ_TENANTS), though ui-demo has no
    #    topic yet; pick it and publish through the UI's form.
    served = ok("GET", "/admin/tenants")["tenants"]
    assert served == [TENANT, OTHER_TENANT], served
    options = page.locator("#tenant-picker option")
    expect(options).to_have_count(1 + len(served))
    assert options.evaluate_all("os => os.map(o => o.value)") == ["*"] + served
    page.select_option("#tenant-picker", TENANT)
    expect(page.locator("#tenant-picker")).to_have_value(TENANT)
    expect(page.locator("#publish-tenant")).to_have_value(TENANT)
    for n in (1, 2, 3):
        page.fill("#publish-topic", TOPIC)
        page.fill("#publish-key", KEY)
        page.fill("#publish-id", f"evt-{n}")
        page.fill("#publish-payload", json.dumps({"amount": n}))
        page.click("#publish-send")
        expect(page.locator("#status")).to_contain_text(f"evt-{n} at offset")
    topics_row = page.locator("#topics-table tbody tr", has_text=TOPIC).first
    expect(topics_row.locator("td").nth(3)).to_have_text("3")
    # The picker: all tenants shows both, one tenant only its own.
    page.select_option("#tenant-picker", "*")
    expect(page.locator("#topics-table")).to_contain_text(OTHER_TENANT)
    expect(page.locator("#topics-table")).to_contain_text(TENANT)
    page.select_option("#tenant-picker", TENANT)
    expect(page.locator("#topics-table")).not_to_contain_text(OTHER_TENANT)
    stored = ok("GET", "/admin/messages", identity(TOPIC, "evt-2"))
    assert stored["payload"] == {"amount": 2}, stored

    # 4. Dead-letter evt-1 (data-plane fetch + nack), then see it in the UI.
    dead_letter("evt-1")
    page.click("#refresh")
    expect(page.locator("#dlq-table tbody tr", has_text=DLQ).locator("td").nth(3)).to_have_text("1")
    groups_row = page.locator("#groups-table tbody tr", has_text=GROUP).first
    expect(groups_row).to_contain_text(TOPIC)
    expect(groups_row.locator("td").nth(3)).to_have_text("2")  # lag: evt-2 and evt-3 above the committed offset
    expect(groups_row.locator("td").nth(4)).to_have_text("0")  # in flight: evt-1 was nacked into the DLQ
    expect(groups_row.locator("td").nth(5)).to_have_text("1")  # dead letters: evt-1
    expect(groups_row.locator("td").nth(6)).to_have_text(re.compile(r"^\d+$"))  # oldest age (s): evt-2's
    oldest = int(groups_row.locator("td").nth(6).inner_text())
    api_row = [g for g in ok("GET", "/admin/consumer-groups", {"tenant": TENANT, "topic": TOPIC})["consumerGroups"]
               if g["consumerGroup"] == GROUP]
    assert len(api_row) == 1 and api_row[0]["oldestUnackedAgeSeconds"] is not None, api_row
    assert 0 <= oldest <= api_row[0]["oldestUnackedAgeSeconds"], (oldest, api_row)
    expect(page.locator("#leases-table")).to_contain_text("ui-test-subscriber")
    # One line per leased partition (group / topic / key), not all of them run together.
    held = sorted(f"{l['consumerGroup']} / {l['topic']} / {l['partitionKey']}" + ("" if l["active"] else " (stale)")
                  for l in ok("GET", "/admin/leases", {"tenant": TENANT})["leases"]
                  if l["leasedBy"] == "ui-test-subscriber")
    items = page.locator("#leases-table tbody tr", has_text="ui-test-subscriber").first.locator("ul.partitions li")
    expect(items).to_have_count(len(held))
    assert held and items.all_inner_texts() == held, (items.all_inner_texts(), held)
    shot(page, "02-overview-with-dead-letter")

    # 5. Find it in the DLQ list (chosen by clicking the DLQ topic) and inspect it from its row.
    page.locator("#dlq-table tbody tr", has_text=DLQ).locator("button.dlq-show").click()
    expect(page.locator("#dlq-list-view")).to_be_visible()
    expect(page.locator("#dlq-list-title")).to_have_text(f"{TENANT} / {DLQ}")
    dead_row = page.locator("#dlq-list tbody tr", has_text="evt-1")
    expect(dead_row).to_have_count(1)
    expect(dead_row.locator("td").nth(0)).to_have_text(KEY)
    expect(dead_row.locator("td").nth(5)).to_have_text("ui test: cannot parse")
    expect(page.locator("#dlq-more")).to_be_hidden()  # one dead letter: the list is complete
    shot(page, "03a-dead-letter-list")
    dead_row.locator("button.dl-inspect").click()
    expect(page.locator("#message-view")).to_be_visible()
    expect(page.locator('#message-fields dd[data-field="reason"]')).to_have_text("ui test: cannot parse")
    expect(page.locator('#message-fields dd[data-field="dead-lettered by"]')).to_have_text(GROUP)
    expect(page.locator('#message-fields dd[data-field="original topic"]')).to_have_text(TOPIC)
    expect(page.locator("#message-json")).to_contain_text(KEY)
    shot(page, "03-inspect-dead-letter")

    # 6. Requeue it: gone from the DLQ, back on the topic for billing (UI and API).
    page.click("#requeue")
    expect(page.locator("#status")).to_contain_text("Requeued evt-1")
    expect(page.locator("#message-view")).to_be_hidden()
    expect(page.locator("#dlq-table tbody tr", has_text=DLQ)).to_have_count(0)
    status, _ = call("GET", "/admin/messages", identity(DLQ, "evt-1"))
    assert status == 404, f"evt-1 still in {DLQ}: {status}"
    original = ok("GET", "/admin/messages", identity(TOPIC, "evt-1"))
    states = {g["consumerGroup"]: g["state"] for g in original["consumerGroups"]}
    assert states.get(GROUP) == "PENDING", states
    again = fetch_one(TOPIC, GROUP)
    assert (again["id"], again["deliveryAttempt"]) == ("evt-1", 1), again
    shot(page, "04-requeued")
    ok("POST", f"/tenants/{TENANT}/topics/{TOPIC}/consumer-groups/{GROUP}/ack",
       body={"receipts": [again["receipt"]]})

    # 7. Dead-letter evt-2 and delete it from its row in the list: cancel first (nothing happens),
    #    then confirm.
    dead_letter("evt-2")
    page.click("#refresh")
    expect(page.locator("#dlq-table tbody tr", has_text=DLQ).locator("td").nth(3)).to_have_text("1")
    page.locator("#dlq-table tbody tr", has_text=DLQ).locator("button.dlq-show").click()
    dead_row = page.locator("#dlq-list tbody tr", has_text="evt-2")
    expect(dead_row).to_have_count(1)
    dead_row.locator("button.dl-delete").click()
    expect(page.locator("#confirm-dialog")).to_be_visible()
    expect(page.locator("#confirm-text")).to_contain_text("evt-2")
    shot(page, "05-delete-confirmation")
    page.click("#confirm-cancel")
    expect(page.locator("#confirm-dialog")).to_be_hidden()
    expect(page.locator("#status")).to_contain_text("Delete cancelled")
    status, _ = call("GET", "/admin/messages", identity(DLQ, "evt-2"))
    assert status == 200, f"cancel deleted evt-2: {status}"
    dead_row.locator("button.dl-delete").click()
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.click("#confirm-ok")
    expect(page.locator("#status")).to_contain_text("Deleted evt-2")
    expect(page.locator("#dlq-table tbody tr", has_text=DLQ)).to_have_count(0)
    status, _ = call("GET", "/admin/messages", identity(DLQ, "evt-2"))
    assert status == 404, f"evt-2 still in {DLQ}: {status}"
    shot(page, "06-deleted")

    # 7b. Settings of a consumer group: load (effective values and sources), save an override,
    #     see it through the admin API, then clear it through the confirmation dialog.
    page.fill("#settings-tenant", TENANT)
    page.fill("#settings-topic", TOPIC)
    page.fill("#settings-group", GROUP)
    page.click("#settings-load")
    expect(page.locator("#settings-view")).to_be_visible()
    max_row = page.locator("#settings-table tbody tr", has_text="maxDeliveries")
    expect(max_row.locator("td").nth(2)).to_have_text("global")
    page.fill("#setting-maxDeliveries", "3")
    page.click("#settings-save")
    expect(page.locator("#status")).to_contain_text("Saved the overrides")
    expect(max_row.locator("td").nth(1)).to_have_text("3")
    expect(max_row.locator("td").nth(2)).to_have_text("group")
    effective = ok("GET", "/admin/settings", {"tenant": TENANT, "topic": TOPIC, "consumerGroup": GROUP})["effective"]
    assert effective["maxDeliveries"] == {"value": 3, "source": "group"}, effective
    shot(page, "06b-settings")
    page.click("#settings-clear")
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.click("#confirm-ok")
    expect(page.locator("#status")).to_contain_text("Cleared the overrides")
    expect(max_row.locator("td").nth(2)).to_have_text("global")
    effective = ok("GET", "/admin/settings", {"tenant": TENANT, "topic": TOPIC, "consumerGroup": GROUP})["effective"]
    assert effective["maxDeliveries"]["source"] == "global", effective
    # 7c. Replay: reset billing to the earliest stored message. The preview (dry run) comes first
    #     and changes nothing; the reset asks in the dialog; cancel changes nothing, confirm moves.
    def committed():
        rows = ok("GET", "/admin/offsets", {"tenant": TENANT, "topic": TOPIC, "consumerGroup": GROUP})["offsets"]
        return {r["partitionKey"]: r["committedOffset"] for r in rows}
    before = committed()
    page.locator("#groups-table tbody tr", has_text=GROUP).first.locator("button.group-reset").click()
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#reset-apply")).to_be_disabled()
    page.select_option("#reset-to", "earliest")
    page.click("#reset-preview")
    expect(page.locator("#status")).to_contain_text("Dry run")
    preview_row = page.locator("#reset-table tbody tr", has_text=KEY)
    expect(preview_row).to_have_count(1)
    target = int(preview_row.locator("td").nth(2).inner_text())
    assert committed() == before, ("a dry run changed offsets", before, committed())
    shot(page, "06a-reset-preview")
    page.click("#reset-apply")
    expect(page.locator("#confirm-dialog")).to_be_visible()
    expect(page.locator("#confirm-ok")).to_have_text("Reset")
    expect(page.locator("#confirm-text")).to_contain_text(GROUP)
    page.click("#confirm-cancel")
    expect(page.locator("#status")).to_contain_text("Reset cancelled")
    assert committed() == before, ("a cancelled reset changed offsets", before, committed())
    page.click("#reset-apply")
    page.click("#confirm-ok")
    expect(page.locator("#status")).to_contain_text(f"Reset {GROUP} on {TOPIC} to earliest")
    assert committed()[KEY] == target, (committed(), target)
    shot(page, "06b-reset-done")
    page.click("#reset-close")
    expect(page.locator("#replay")).to_be_hidden()
    # 7d. Delete the consumer group, then the topic, from their rows: each asks in the dialog first,
    #     and the page repeats the admin DELETE until it answers done.
    def groups_of_topic():
        return [g["consumerGroup"] for g in ok("GET", "/admin/consumer-groups", {"tenant": TENANT, "topic": TOPIC})["consumerGroups"]]
    page.locator("#groups-table tbody tr", has_text=GROUP).first.locator("button.group-delete").click()
    expect(page.locator("#confirm-text")).to_contain_text(GROUP)
    page.click("#confirm-cancel")
    expect(page.locator("#status")).to_contain_text("Delete cancelled")
    assert GROUP in groups_of_topic(), "cancel deleted the group"
    page.locator("#groups-table tbody tr", has_text=GROUP).first.locator("button.group-delete").click()
    page.click("#confirm-ok")
    expect(page.locator("#status")).to_contain_text(f"Deleted consumer group {GROUP}")
    assert GROUP not in groups_of_topic(), groups_of_topic()
    page.locator("#topics-table tbody tr", has_text=TOPIC).first.locator("button.topic-delete").click()
    expect(page.locator("#confirm-text")).to_contain_text(TOPIC)
    page.click("#confirm-ok")
    expect(page.locator("#status")).to_contain_text(f"Deleted topic {TOPIC}")
    status, _ = call("DELETE", "/admin/topics", {"tenant": TENANT, "topic": TOPIC})
    assert status == 404, f"{TOPIC} still stored: {status}"
    shot(page, "06b-topic-deleted")

    # 8. A token that stops working mid-session: the detail, and back to the login form.
    page.evaluate(f"sessionStorage.setItem('tenant-mq.admin-token', {json.dumps(WRONG_TOKEN)})")
    page.click("#refresh")
    expect(page.locator("#login-view")).to_be_visible()
    expect(page.locator("#error")).to_contain_text(problem["detail"])
    expect(page.locator("#app-view")).to_be_hidden()
    expect(page.locator("#session")).to_be_hidden()
    shot(page, "07-token-rejected")

    assert not browser_errors, browser_errors
    # Only the wrong tokens' 401s failed (the page names its icon: no look-up of /favicon.ico).
    unexpected = [f for f in failed_loads if not (f[0] == 401 and f[1].startswith("/admin/"))]
    assert not unexpected and (401, "/admin/topics") in failed_loads, failed_loads
    browser.close()


if __name__ == "__main__":
    main()
