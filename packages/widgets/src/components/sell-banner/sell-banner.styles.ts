import { bannerStyles } from '../buy-banner/buy-banner.styles.js';

/** Same look as the buy banner: one banner style across the partner's pages. */
export const sellBannerStyles = bannerStyles;
