/** SVG element creation. */

const SVG = "http://www.w3.org/2000/svg";

/** Make the SVG element `name` with `attrs` (and `text`), appended to `parent` when given. */
export function el(name, attrs, parent, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}
