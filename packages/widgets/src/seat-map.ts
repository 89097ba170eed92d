/**
 * The seat map entry: defines `<resale-seat-map>`. A separate chunk of the script-tag build,
 * imported lazily; bundlers import it as `@resale/widgets/seat-map`.
 */
import { ResaleSeatMap } from './components/seat-map/seat-map.js';

ResaleSeatMap.define('resale-seat-map');

export { ResaleSeatMap };
