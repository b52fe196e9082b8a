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
  return [axis, ...columns];
}

export function hasPoints(data) {
  return data.slice(1).some((column) => column.some((v) => v !== null));
}
