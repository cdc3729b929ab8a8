// What the two API stubs share: reading a step script and filling in its "{{NAME}}" values.
import fs from "node:fs";

/// The script file: {"vars": {NAME: regex}, "steps": [...]}.
export function loadScript(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/// The text of a message's content (a string, or blocks with `text`).
export function textOf(content) {
  if (typeof content === "string") return content;
  return (content || []).map((b) => (typeof b.text === "string" ? b.text : "")).join("\n");
}

/// {NAME: first group of the script's regex for NAME, matched against `prompt`}.
export function varsFrom(script, prompt) {
  const vars = {};
  for (const [name, re] of Object.entries(script.vars || {})) {
    const m = prompt.match(new RegExp(re));
    if (m) vars[name] = m[1];
  }
  return vars;
}

/// `value` with every "{{NAME}}" in its strings replaced, at any depth.
export function substitute(value, vars) {
  if (typeof value === "string") return value.replace(/\{\{(\w+)\}\}/g, (m, k) => (k in vars ? vars[k] : m));
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  return value;
}
