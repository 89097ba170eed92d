/** @jsxImportSource hono/jsx */

/**
 * A bar chart drawn on the server as inline SVG: no script, no library, nothing the pages'
 * policy would have to allow (presentation comes from the stylesheet's `.chart` rules). Why our
 * own: a day-by-day bar chart is forty lines, and a chart library would be the console's only
 * script (the pages run none) and ten times the page's size. Screen readers get the figures as
 * a table (`.visually-hidden`), the chart itself is `aria-hidden`.
 */

/** One bar: its label (a day) and its value. */
export interface ChartPoint {
  label: string;
  value: number;
}

const WIDTH = 640;
const HEIGHT = 160;
const AXIS = 26;

/**
 * Bars for `points`, scaled to the largest, with the largest value and the first and last
 * labels written on the chart; `format` writes a value.
 *
 * @example <BarChart title="Resales per day" points={[{ label: '1 Mar', value: 3 }]} format={String} />
 */
export function BarChart(props: { title: string; points: readonly ChartPoint[]; format: (value: number) => string; caption: { label: string; value: string } }) {
  const { points } = props;
  const max = Math.max(1, ...points.map((p) => p.value));
  const slot = WIDTH / Math.max(1, points.length);
  const bar = Math.max(1, slot * 0.7);
  const usable = HEIGHT - AXIS - 24;
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="presentation" aria-hidden="true" focusable="false">
        <line class="axis" x1="0" y1={HEIGHT - AXIS} x2={WIDTH} y2={HEIGHT - AXIS} />
        <text x="0" y="18" class="label">
          {props.format(max)}
        </text>
        {points.map((p, i) => {
          const h = (p.value / max) * usable;
          return <rect x={(i * slot + (slot - bar) / 2).toFixed(1)} y={(HEIGHT - AXIS - h).toFixed(1)} width={bar.toFixed(1)} height={h.toFixed(1)} />;
        })}
        {points.length > 0 ? (
          <>
            <text x="0" y={HEIGHT - 3} class="label">
              {points[0]!.label}
            </text>
            <text x={WIDTH} y={HEIGHT - 3} class="label" text-anchor="end">
              {points[points.length - 1]!.label}
            </text>
          </>
        ) : null}
      </svg>
      <table class="visually-hidden">
        <caption>{props.title}</caption>
        <thead>
          <tr>
            <th scope="col">{props.caption.label}</th>
            <th scope="col">{props.caption.value}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr>
              <th scope="row">{p.label}</th>
              <td>{props.format(p.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
