/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { OFFLINE_REASONS } from '@resale/shared/admission-kit';
import { Hono } from 'hono';
import { raw } from 'hono/html';
import { VERIFY_REASONS } from '../../../domain/admission/admission.service.js';
import { servicePaths } from '../../../lib/urls.js';
import { pageLang } from '../../../lib/i18n.js';
import { cspWith, Layout, renderPage } from '../layout.js';
import { DOOR_WORKER, pageScriptOf, serveOfflineWorker } from '../offline-worker.js';
import { dm } from './door.messages.js';

/** Where the page's script is served (@resale/widgets src/hosted/door.ts). */
export const DOOR_SCRIPT = pageScriptOf(DOOR_WORKER);

/** The page's own rules, after the design system's. */
const DOOR_CSS = `main{max-width:48rem}
.door-head{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:var(--s2) var(--s3);margin:0 0 var(--s3)}.door-head h1{margin:0}
.door-of{margin:0 0 var(--s3);font-weight:600}
.net{display:inline-block;padding:var(--s1) var(--s3);border-radius:999px;font-size:var(--t-sm);font-weight:700;background:var(--ok);color:#fff}.net[data-net=offline]{background:var(--warn)}
.verdict{border-radius:12px;padding:var(--s4);margin:0 0 var(--s4);background:var(--surface);border:3px solid var(--line);min-height:7.5rem}
.verdict p{margin:0}.verdict .big{font-size:2.5rem;font-weight:800;line-height:1.1}.verdict .why{font-size:var(--t-lg);font-weight:600}.verdict .who{margin-top:var(--s1)}
.verdict[data-verdict=in]{border-color:var(--ok);background:#e8f5ec}.verdict[data-verdict=in] .big{color:#0f5323}
.verdict[data-verdict=no]{border-color:var(--error);background:#fdecec}.verdict[data-verdict=no] .big{color:#8b1a1a}
.scan-form{display:flex;flex-wrap:wrap;gap:var(--s2);align-items:end}.scan-form .field{flex:1 1 16rem;margin:0}.scan-form input{font-family:ui-monospace,monospace}
.camera{margin:var(--s3) 0}.camera video{display:block;width:100%;max-height:60vh;border-radius:12px;background:#000;margin:0 0 var(--s2)}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:var(--s2);margin:0 0 var(--s3)}.stats div{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);padding:var(--s2) var(--s3)}
.stats dt{font-size:var(--t-sm);color:var(--muted)}.stats dd{margin:0;font-size:var(--t-lg);font-weight:700;font-variant-numeric:tabular-nums}
.log{list-style:none;padding:0;margin:0 0 var(--s4)}.log li{display:flex;flex-wrap:wrap;gap:0 var(--s2);padding:var(--s2) 0;border-top:1px solid var(--line)}.log .tag{font-weight:700;min-width:3.5rem}.log [data-in=yes] .tag{color:#0f5323}.log [data-in=no] .tag{color:#8b1a1a}.log time{color:var(--muted);font-variant-numeric:tabular-nums}
`;

/** The page calls the door API (its script's fetches) and nothing else; no image but its own. */
const DOOR_CSP = cspWith({ styles: [DOOR_CSS], scripts: true, fetches: true });

/** Every text the script says, in the page's language: the page's own keys and a verdict per reason. */
function scriptTexts(lang: Lang): Record<string, string> {
  const keys = ['loading', 'noDoor', 'closed', 'codesOff', 'needsKit', 'online', 'offline', 'ready', 'checking', 'camera', 'cameraStop', 'cameraFailed', 'noScans', 'forgotten', 'forgetUnsent', 'in', 'no', 'offlineTag', 'repeat', 'secondEntry', 'seat', 'doorOf'] as const;
  const reasons = [...new Set([...VERIFY_REASONS, ...OFFLINE_REASONS])];
  return Object.fromEntries([...keys.map((k) => [k, dm(lang, k)]), ...reasons.map((r) => [`reason_${r}`, dm(lang, `reason_${r}`)])]);
}

/** The scanner page: a shell its script fills (which door, the verdicts, the log); the same for every door, so a service worker can keep it. */
function DoorPage(props: { lang: Lang }) {
  const { lang } = props;
  const say = (key: Parameters<typeof dm>[1]) => dm(lang, key);
  return (
    <Layout lang={lang} title={say('title')} head={
        <>
          <style>{raw(DOOR_CSS)}</style>
          <script type="module" src={DOOR_SCRIPT}></script>
        </>
      }>
      <div class="door" data-door data-lang={lang} data-api="/v1/door" data-worker={DOOR_WORKER.path} data-worker-scope={DOOR_WORKER.scope} data-texts={JSON.stringify(scriptTexts(lang))}>
        <div class="door-head">
          <h1>{say('title')}</h1>
          <span class="net" data-door-net data-net="online" role="status" hidden>
            {say('online')}
          </span>
        </div>
        <p class="door-of" data-door-of hidden></p>
        <p class="notice" data-door-message role="status">
          {say('loading')}
        </p>
        <noscript>
          <p class="notice error">{say('noScript')}</p>
        </noscript>
        <section data-door-scan hidden>
          <div class="verdict" data-door-verdict data-verdict="ready" role="status" aria-live="assertive" aria-atomic="true">
            <p class="why">{say('ready')}</p>
          </div>
          <form class="scan-form" data-door-form autocomplete="off">
            <div class="field">
              <label for="door-code">{say('codeLabel')}</label>
              <p class="hint" id="door-code-hint">
                {say('codeHint')}
              </p>
              <input id="door-code" name="code" type="text" autocapitalize="off" spellcheck={false} aria-describedby="door-code-hint" maxlength={2000} required autofocus />
            </div>
            <button type="submit">{say('check')}</button>
          </form>
          <div class="camera">
            <video data-door-video muted playsinline hidden></video>
            <button type="button" class="secondary" data-door-camera hidden>
              {say('camera')}
            </button>
          </div>
          <h2>{say('statsTitle')}</h2>
          <dl class="stats">
            <div>
              <dt>{say('admittedHere')}</dt>
              <dd data-door-admitted>0</dd>
            </div>
            <div>
              <dt>{say('waiting')}</dt>
              <dd data-door-waiting>0</dd>
            </div>
            <div>
              <dt>{say('kitTickets')}</dt>
              <dd data-door-kit-tickets>0</dd>
            </div>
            <div>
              <dt>{say('kitTime')}</dt>
              <dd data-door-kit-time>–</dd>
            </div>
          </dl>
          <p class="actions">
            <button type="button" class="secondary" data-door-sync>
              {say('syncNow')}
            </button>
          </p>
          <h2>{say('recent')}</h2>
          <ol class="log" data-door-log aria-live="off"></ol>
          <p class="muted" data-door-log-empty>
            {say('noScans')}
          </p>
          <p>
            <button type="button" class="link-button" data-door-forget>
              {say('forget')}
            </button>
          </p>
        </section>
        <p class="muted">{say('intro')}</p>
      </div>
    </Layout>
  );
}

/**
 * The venue's scanner page (`/door`) and its service worker (`/door/sw.js`, scope `/door`).
 * Door staff open the link made in the console (`/door#door_…`): the token is in the fragment,
 * which no request carries (not to this service, not in a Referer, not in its logs); the page's
 * script keeps it on the device and calls the door API with it (http/api/door.routes.ts). The
 * page is the same shell for every door, in `?lang=` (English by default), so the worker can
 * keep it for a reload without network.
 */
export function doorPageRoutes() {
  const app = new Hono();
  app.get(servicePaths.door(), (c) => {
    c.header('X-Robots-Tag', 'noindex, nofollow');
    return renderPage(c, <DoorPage lang={pageLang(c, 'en')} />, { csp: DOOR_CSP });
  });
  app.get(DOOR_WORKER.path, (c) => serveOfflineWorker(c, DOOR_WORKER));
  return app;
}
