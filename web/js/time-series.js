// SPDX-License-Identifier: MIT
// Joining /api/v1/history documents into the columns uPlot draws: one shared time axis
// (seconds), one column per series, null where a series has no point (a gap, drawn as a
// break in the line, never as 0).

// docs: [{label, doc}] where doc is a history document or an Error.
export function alignSeries(docs, scale) {
  const times = new Set();
  for (const {doc} of docs) {
    if (!(doc instanceof Error)) for (const t of doc.time) times.add(t);
  }
  const axis = [...times].sort((a, b) => a - b);
  const index = new Map(axis.map((t, i) => [t, i]));
  const columns = docs.map(({doc}) => {
    const column = new Array(axis.length).fill(null);
    if (doc instanceof Error) return column;
    doc.time.forEach((t, i) => {
      const v = doc.avg[i];
      column[index.get(t)] = v === null || v === undefined ? null : scale(v);
    });
    return column;
  });
  return trimLeadingGaps([axis, ...columns]);
}

// A daemon that started minutes ago has no reading for the rest of the hour: the chart
// starts at its first reading instead of squeezing the minutes against the right edge.
function trimLeadingGaps(data) {
  const [axis, ...columns] = data;
  let first = 0;
  while (first < axis.length - 2 && columns.every((column) => column[first] === null)) first++;
  return data.map((column) => column.slice(first));
}

export function hasPoints(data) {
  return data.slice(1).some((column) => column.some((v) => v !== null));
}
