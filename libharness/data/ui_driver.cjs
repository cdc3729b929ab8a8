// harness's browser check driver: runs one ui_element_exists or ui_navigation check in a
// headless Chromium driven by playwright-core, and prints one JSON line with the verdict.
// Started by the verify engine (libharness/src/verify/ui_check.cpp) as: node ui_driver.cjs '<json>'
//   input:  {type, url, selector, steps: [{action, selector, value}], expects: {url, text}, timeout_ms}
//   output: {status: "passed" | "failed" | "error", message, evidence, final_url}
// playwright-core is looked up in $HARNESS_NODE_MODULES (':'-separated), the project's
// node_modules, beside this file, and the global npm roots; Chromium in $HARNESS_CHROMIUM, then
// /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

function out(status, message, extra = {}) {
  process.stdout.write(JSON.stringify({ status, message, ...extra }) + "\n");
  process.exit(0);
}

function loadPlaywright() {
  const roots = [
    ...(process.env.HARNESS_NODE_MODULES || "").split(":").filter(Boolean),
    path.join(process.cwd(), "node_modules"),
    path.join(__dirname, "node_modules"),
    "/usr/local/lib/node_modules",
    "/usr/lib/node_modules",
  ];
  for (const r of roots) {
    const dir = path.join(r, "playwright-core");
    if (fs.existsSync(path.join(dir, "package.json"))) return require(dir);
  }
  out("error", "browser checks need playwright-core: `npm install playwright-core` in the project " +
               "(or globally), or set HARNESS_NODE_MODULES to the node_modules that holds it");
}

function chromiumPath() {
  const candidates = [process.env.HARNESS_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  out("error", "browser checks need Chromium: `apt-get install chromium`, or set HARNESS_CHROMIUM to its path");
}

async function step(page, s, base, timeout) {
  switch (s.action) {
    case "goto": return page.goto(new URL(s.value, base).toString(), { timeout });
    case "click": return page.click(s.selector, { timeout });
    case "fill": return page.fill(s.selector, s.value, { timeout });
    case "wait_for": return page.waitForSelector(s.selector, { timeout });
    case "expect_text": {
      const where = s.selector || "body";
      await page.waitForSelector(where, { timeout });
      await page.waitForFunction(([sel, text]) => (document.querySelector(sel)?.textContent || "").includes(text),
                                 [where, s.value], { timeout }).catch(() => {});
      const got = (await page.textContent(where)) || "";
      if (!got.includes(s.value)) throw new Error(`expected text "${s.value}" in ${where}, found "${got.trim().slice(0, 200)}"`);
      return;
    }
    case "expect_url": {
      const re = new RegExp(s.value);
      await page.waitForURL((u) => re.test(u.toString()), { timeout }).catch(() => {});
      if (!re.test(page.url())) throw new Error(`expected URL /${s.value}/, at ${page.url()}`);
      return;
    }
    default: throw new Error(`unknown step ${s.action}`);
  }
}

async function main() {
  let check;
  try { check = JSON.parse(process.argv[2] || ""); } catch { out("error", "ui_driver: expected the check as JSON in argv[2]"); }
  const { chromium } = loadPlaywright();
  const executablePath = chromiumPath();
  const timeout = Math.max(1000, check.timeout_ms || 30000);
  let browser;
  try {
    browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  } catch (e) {
    out("error", `could not start Chromium (${executablePath}): ${e.message.split("\n")[0]}`);
  }
  const page = await browser.newPage();
  let done = 0;
  try {
    if (check.url) await page.goto(check.url, { timeout });
    if (check.type === "ui_element_exists") {
      await page.waitForSelector(check.selector, { timeout, state: "attached" });
      if (check.expects?.text) await step(page, { action: "expect_text", selector: check.selector, value: check.expects.text }, check.url, timeout);
    } else {
      for (const s of check.steps || []) {
        await step(page, s, page.url() || check.url, timeout);
        ++done;
      }
      if (check.expects?.url) await step(page, { action: "expect_url", value: check.expects.url }, check.url, timeout);
      if (check.expects?.text) await step(page, { action: "expect_text", value: check.expects.text }, check.url, timeout);
    }
  } catch (e) {
    const msg = e.message.split("\n")[0].replace(/^page\.\w+: /, "");
    const what = check.type === "ui_navigation" ? `${msg} (step ${done + 1} of ${(check.steps || []).length})`
                                                 : `${check.selector} not found on ${check.url}: ${msg}`;
    const at = page.url();
    await browser.close();
    out("failed", what, { final_url: at });
  }
  const finalUrl = page.url();
  const title = await page.title();
  await browser.close();
  out("passed", check.type === "ui_element_exists" ? `${check.selector} found` : `${(check.steps || []).length} steps done`,
      { evidence: `at ${finalUrl} (title "${title}")`, final_url: finalUrl });
}

main().catch((e) => out("error", `ui_driver: ${e.message.split("\n")[0]}`));
