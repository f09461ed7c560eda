/** Benchmark result rows and the table `npm run bench` prints. */
export interface Row {
  name: string;
  unit: string;
  ours: number;
  baseline: number;
  note?: string;
  /** Times: smaller is better (ratio = baseline / ours). Rates: ratio = ours / baseline. */
  lowerIsBetter?: boolean;
}

const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3));

export function printTable(title: string, rows: Row[]): string {
  const lines = [
    `## ${title}`,
    '',
    '| benchmark | unit | Spyglass | baseline | ratio (× better) | baseline is |',
    '|---|---|---:|---:|---:|---|',
    ...rows.map((r) => {
      const ratio = r.lowerIsBetter ? r.baseline / r.ours : r.ours / r.baseline;
      return `| ${r.name} | ${r.unit} | ${fmt(r.ours)} | ${fmt(r.baseline)} | ${ratio.toFixed(2)} | ${r.note ?? ''} |`;
    }),
    '',
  ];
  const text = lines.join('\n');
  console.log(text);
  return text;
}
