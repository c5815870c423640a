/** Page helpers shared by the board pages: elements by id, checkboxes, and the JSON the templates embed. */

export const $ = (id) => document.getElementById(id);

/** Whether the checkbox `id` is ticked. */
export const checked = (id) => $(id).checked;

/** The value of a `json_script` element. */
export const readJson = (id) => JSON.parse($(id).textContent);
