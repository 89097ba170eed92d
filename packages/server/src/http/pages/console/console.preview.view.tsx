/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { raw } from 'hono/html';
import { servicePaths } from '../../../lib/urls.js';
import { cspWith, SiteHeader } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import { CONSOLE_CSS } from './console.view.js';
import type { PreviewModel } from './console.preview.load.js';
import { sm } from './console.settings.messages.js';

/** The CSS rule that gives the preview the typed brand colour (its hash joins the page's CSP), or null. */
export function previewColourCss(model: PreviewModel): string | null {
  return model.brand.color && /^#[0-9a-fA-F]{6}$/.test(model.brand.color) ? `.preview-page{--brand:${model.brand.color}}` : null;
}

/**
 * What the settings page adds to the console's page for its preview: the page script, the
 * widgets (the banner), the colour rule, and a policy that lets them in: scripts and fetches
 * from the service only, images from any https origin (a logo or banner being typed may come
 * from anywhere; the settings accept https images only).
 */
export function previewPage(model: PreviewModel) {
  const colour = previewColourCss(model);
  return {
    head: (
      <>
        {pageScriptTag()}
        <script type="module" src={servicePaths.widgetsEntry()}></script>
        {colour ? <style>{raw(colour)}</style> : null}
      </>
    ),
    csp: cspWith({ styles: [CONSOLE_CSS, ...(colour ? [colour] : [])], widgets: true, imgSrc: ['https:'] }),
  };
}

/**
 * The settings page's preview: the hosted pages' header (the layout's own {@link SiteHeader})
 * with a link and a button in the brand colour, and the buy banner drawn by the widget itself
 * (`<resale-buy-banner>`, given its component by the page script from `data-component`).
 * `data-preview` marks what the page script replaces as the administrator types; the colour
 * rides in `data-brand-color` for it (the server's rule, {@link previewColourCss}, draws it
 * without script).
 */
export function PreviewView(props: { lang: Lang; model: PreviewModel }) {
  const { lang, model } = props;
  return (
    <section class="preview" id="preview" data-preview aria-labelledby="preview-title" aria-live="polite" data-brand-color={model.brand.color ?? ''}>
      <h2 id="preview-title">{sm(lang, 'previewTitle')}</h2>
      <p class="muted">{sm(lang, 'previewIntro')}</p>
      <h3>{sm(lang, 'previewHeader')}</h3>
      <div class="preview-page">
        <SiteHeader lang={lang} brand={model.brand} />
        <div class="preview-body">
          <p>
            <a href="#preview">{sm(lang, 'previewLink')}</a>
          </p>
          <p>
            <button type="button" tabindex={-1}>
              {sm(lang, 'previewButton')}
            </button>
          </p>
        </div>
      </div>
      <h3>{sm(lang, 'previewBanner')}</h3>
      {model.bannerProblem ? (
        <p class="field-error">{sm(lang, 'previewBannerProblem', { problem: model.bannerProblem })}</p>
      ) : model.banner ? (
        <div class="preview-banner">
          <resale-buy-banner lang={lang} data-component={JSON.stringify(model.banner)}></resale-buy-banner>
          <noscript>
            <p class="muted">{sm(lang, 'previewNoScript')}</p>
          </noscript>
        </div>
      ) : (
        <p class="muted">{sm(lang, 'previewNoBanner')}</p>
      )}
    </section>
  );
}
