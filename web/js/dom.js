// SPDX-License-Identifier: MIT
// Tiny DOM helpers: build elements from data, never from HTML strings, so that command lines
// and user names (which anyone may choose) can never inject markup.

// el("td", {class: "num", title: "why"}, "text", childNode, ...)
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    // Through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows.
    else if (key === "style") Object.assign(node.style, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replaceChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

// A table from column definitions: [{label, cell: row => td content, class}], rows.
// Each cell carries its column's label (data-label) for the phone layout, where rows
// become cards.
export function fillTable(table, columns, rows, {rowProps = () => ({}), empty = "none"} = {}) {
  const head = el("thead", {}, el("tr", {}, columns.map((c) => el("th", {class: c.class, scope: "col"}, c.label))));
  const body = el("tbody");
  for (const row of rows) {
    body.append(el("tr", rowProps(row), columns.map((c) => cellFor(c, row))));
  }
  if (rows.length === 0) {
    body.append(el("tr", {class: "empty"}, el("td", {colspan: columns.length}, empty)));
  }
  table.replaceChildren(head, body);
}

function cellFor(column, row) {
  const content = column.cell(row);
  const props = {class: column.class, "data-label": column.label};
  if (content && typeof content === "object" && !(content instanceof Node) && "text" in content) {
    return el("td", {...props, title: content.title, class: [column.class, content.class].filter(Boolean).join(" ")}, content.text);
  }
  return el("td", props, content);
}
