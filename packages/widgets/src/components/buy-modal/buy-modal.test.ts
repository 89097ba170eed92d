import { afterEach, describe, expect, it } from 'vitest';
import { $, cta, mount, shadow, text } from '../../internal/test-utils.js';
import type { BuyModalComponent } from '../../internal/types.js';
import type { ResaleBuyModal } from './buy-modal.js';

const modal = (over: Partial<BuyModalComponent['buyModal']> = {}): BuyModalComponent => ({
  type: 'modal',
  class: 'buyModal',
  buyModal: { title: 'Sold out?', description: 'Resale tickets are available.', image: 'https://cdn.example/m.png', visible: true, callToAction: cta(), ...over },
});

const dialogOf = (el: ResaleBuyModal) => $(el, 'dialog') as HTMLDialogElement;

/** A focused button outside the modal, as the opener. */
function opener(): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = 'open';
  document.body.append(b);
  b.focus();
  return b;
}

afterEach(() => document.body.replaceChildren());

describe('<resale-buy-modal>', () => {
  it('opens by itself with a labelled dialog, a close button and the call to action', async () => {
    const el = await mount('resale-buy-modal', { component: modal() });
    await el.updateComplete;
    const dialog = dialogOf(el);
    expect(el.open).toBe(true);
    expect(dialog.open).toBe(true);
    expect(dialog.getAttribute('aria-labelledby')).toBe('title');
    expect(text($(el, '#title'))).toBe('Sold out?');
    expect(dialog.getAttribute('aria-describedby')).toBe('description');
    expect($(el, '[part="close"]').getAttribute('aria-label')).toBe('Close');
    expect($(el, 'a[part~="cta"]')).toBeTruthy();
  });

  it('localises the close button', async () => {
    const el = await mount('resale-buy-modal', { component: modal(), lang: 'es' });
    expect($(el, '[part="close"]').getAttribute('aria-label')).toBe('Cerrar');
  });

  it('does not open by itself with manual, and opens on show()', async () => {
    const el = await mount('resale-buy-modal', { component: modal() }, { manual: '' });
    expect(dialogOf(el).open).toBe(false);
    el.show();
    await el.updateComplete;
    expect(dialogOf(el).open).toBe(true);
  });

  it('renders nothing when visible is false, and show() does not open it', async () => {
    const el = await mount('resale-buy-modal', { component: modal({ visible: false }) });
    el.show();
    await el.updateComplete;
    expect(shadow(el).querySelector('dialog')).toBeNull();
    expect(el.open).toBe(false);
  });

  it('never opens with a disabled call to action (nothing for sale): no dialog on page load, show() does nothing', async () => {
    const el = await mount('resale-buy-modal', { component: modal({ callToAction: cta({ enabled: false }) }) });
    await el.updateComplete;
    expect(el.open).toBe(false);
    expect(shadow(el).querySelector('dialog, button[disabled]')).toBeNull();
    el.show();
    await el.updateComplete;
    expect(el.open).toBe(false);
  });

  it('opens when offers appear, and closes when they are gone', async () => {
    const el = await mount('resale-buy-modal', { component: modal({ callToAction: cta({ enabled: false }) }) }, { 'return-to': 'https://tickets.example/e/1' });
    el.component = modal();
    await el.updateComplete;
    await el.updateComplete;
    expect(dialogOf(el).open).toBe(true);
    expect(new URL($(el, 'a[part~="cta"]').getAttribute('href')!).searchParams.get('returnTo')).toBe('https://tickets.example/e/1');
    el.component = modal({ callToAction: cta({ enabled: false }) });
    await el.updateComplete;
    expect(el.open).toBe(false);
    expect(shadow(el).querySelector('dialog')).toBeNull();
  });

  it('closes on Escape and returns focus to the opener', async () => {
    const button = opener();
    const el = await mount('resale-buy-modal', { component: modal() }, { manual: '' });
    el.show();
    await el.updateComplete;
    expect(shadow(el).activeElement).toBe($(el, '[part="close"]'));
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true, composed: true });
    $(el, '[part="close"]').dispatchEvent(esc);
    await el.updateComplete;
    expect(esc.defaultPrevented).toBe(true);
    expect(el.open).toBe(false);
    expect(dialogOf(el).open).toBe(false);
    expect(document.activeElement).toBe(button);
  });

  it('closes with the close button and with a click on the overlay', async () => {
    const el = await mount('resale-buy-modal', { component: modal() });
    $(el, '[part="close"]').click();
    await el.updateComplete;
    expect(el.open).toBe(false);
    el.show();
    await el.updateComplete;
    dialogOf(el).dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await el.updateComplete;
    expect(el.open).toBe(false);
    el.show();
    await el.updateComplete;
    $(el, '[part="title"]').click();
    await el.updateComplete;
    expect(el.open).toBe(true); // a click inside the panel does not close it
  });

  it('keeps Tab inside the dialog', async () => {
    const el = await mount('resale-buy-modal', { component: modal() });
    const close = $(el, '[part="close"]');
    const link = $(el, 'a[part~="cta"]');
    link.focus();
    const tab = new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true, composed: true });
    link.dispatchEvent(tab);
    expect(tab.defaultPrevented).toBe(true);
    expect(shadow(el).activeElement).toBe(close);
    const back = new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, bubbles: true, cancelable: true, composed: true });
    close.dispatchEvent(back);
    expect(shadow(el).activeElement).toBe(link);
  });

  it('stays closed after being closed, when new data arrives', async () => {
    const el = await mount('resale-buy-modal', { component: modal() });
    el.close();
    await el.updateComplete;
    el.component = modal({ title: 'Updated' });
    await el.updateComplete;
    expect(el.open).toBe(false);
  });

  it('escapes markup and drops a non-http image', async () => {
    const el = await mount('resale-buy-modal', { component: modal({ title: '<img src=x onerror=alert(1)>', image: 'javascript:alert(1)' }) });
    expect(shadow(el).querySelector('img')).toBeNull();
    expect(text($(el, '#title'))).toBe('<img src=x onerror=alert(1)>');
  });
});
