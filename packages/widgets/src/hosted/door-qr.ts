/**
 * The QR decoder of the venue's scanner page (door.ts), for browsers that do not read QR codes
 * themselves (no BarcodeDetector: Safari, Firefox, Chromium on Linux and Windows): built as its
 * own file (vite.hosted.config.ts, served at `/widgets/v1/door-qr.js`) and loaded by the page
 * the first time its camera is offered without BarcodeDetector, so a door whose browser has one
 * never downloads it. The page's service worker keeps it, for a reload offline.
 *
 * The decoding is jsQR's (Apache-2.0), a pure JavaScript port of ZXing's QR reader: it reads
 * the RGBA pixels of one frame. Why jsQR: it has no WebAssembly (the page's policy allows the
 * service's own scripts and nothing else), it reads the dark-on-light codes of the ticket view
 * at a few frames a second on a phone, and the journeys already decode the ticket view's codes
 * with it.
 */
// jsQR is CommonJS whose module.exports also carries the function as `default` (what its types name).
import jsQR from 'jsqr';

/**
 * The text of the QR code in one frame (`pixels`: RGBA, `width` × `height`), or null. Only dark
 * on light is looked for: a phone shows the ticket's code so, and looking for both halves the
 * frames read a second.
 *
 * @example readQr(context.getImageData(0, 0, w, h).data, w, h) // 'KNAAAAB…' or null
 */
export function readQr(pixels: Uint8ClampedArray, width: number, height: number): string | null {
  return jsQR.default(pixels, width, height, { inversionAttempts: 'dontInvert' })?.data || null;
}
