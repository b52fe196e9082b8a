// SPDX-License-Identifier: MIT
// Measurements taken inside the page: how much of each chart is drawn in a series colour,
// the contrast of text against its background, and whether anything overflows the screen.

// Pixels of each chart's canvas drawn in one of `colours` ("#rrggbb"), by chart metric.
export async function seriesPixels(page, colours) {
  return page.evaluate((hexes) => {
    const wanted = hexes.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
    const counts = {};
    for (const figure of document.querySelectorAll("figure.chart")) {
      const canvas = figure.querySelector("canvas");
      const {data} = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] < 200) continue;
        if (wanted.some(([r, g, b]) => Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 30)) count++;
      }
      counts[figure.dataset.metric] = count;
    }
    return counts;
  }, colours);
}

// seriesPixels once every chart has more than `minimum` pixels of its series, or after
// `timeoutMs` (the last counts, for the caller's assertion): a chart holds a single point, and
// draws no line, until the daemon's second reading reaches the page, which on a loaded
// machine can come after the legend shows the first value.
export async function seriesPixelsOnceDrawn(page, colours, minimum, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await seriesPixels(page, colours);
    const drawn = Object.values(counts).every((count) => count > minimum);
    if (drawn || Date.now() > deadline) return counts;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// Every visible text element's contrast ratio (WCAG 2) against the background behind it,
// for the elements that carry meaning by colour or are the page's ordinary text.
export async function contrastReport(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      const m = c.match(/rgba?\(([\d.]+)[, ]+([\d.]+)[, ]+([\d.]+)(?:[, /]+([\d.]+%?))?\)/);
      if (!m) return null;
      const alpha = m[4] === undefined ? 1 : (m[4].endsWith("%") ? parseFloat(m[4]) / 100 : parseFloat(m[4]));
      return {rgb: [m[1], m[2], m[3]].map(Number), alpha};
    };
    const luminance = ([r, g, b]) => {
      const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const background = (node) => {
      for (let n = node; n; n = n.parentElement) {
        const c = parse(getComputedStyle(n).backgroundColor);
        if (c && c.alpha > 0.5) return c.rgb;
      }
      return [255, 255, 255];
    };
    const selectors = ["body", "h1", "h2", ".node-line", ".connection", "th", "td", ".badge", ".hint", "a",
                       ".muted", ".na", "button.link", ".sections a", ".u-legend", ".chart-state"];
    const report = [];
    for (const selector of selectors) {
      for (const node of document.querySelectorAll(selector)) {
        if (!node.textContent.trim() || node.getClientRects().length === 0) continue;
        const style = getComputedStyle(node);
        const fg = parse(style.color).rgb;
        const bg = background(node);
        const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
        report.push({selector, text: node.textContent.trim().slice(0, 30), ratio: (hi + 0.05) / (lo + 0.05)});
      }
    }
    return report;
  });
}

// The widest element that sticks out of the viewport (a phone must not scroll sideways,
// except inside the tables' own scrolling boxes).
export async function horizontalOverflow(page) {
  return page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
}
