/**
 * A visible buy banner (settings `buyAccessLayer.buyBanner`), as the tests and the benchmark
 * configure it: apart from accesslayer.buy.testing.ts so the benchmark imports it without Vitest.
 */
export const BANNER_SETTINGS = {
  visible: true,
  title: { en: 'Sold out? Not quite.', es: '¿Agotado? No del todo.' },
  description: { en: 'Official resale from fans.', es: 'Reventa oficial entre fans.' },
  ctaText: { en: 'See resale', es: 'Ver reventa' },
  image: 'https://partner.example/img/banner.jpg',
  colors: { background: '#112233', text: '#fafafa' },
};
