/**
 * Path routing under /console/ with the History API (the server answers the
 * entry page for any path under it, so a reload or a shared link works).
 */
import { signal } from '@preact/signals';

export const BASE = '/console';
const current = () => location.pathname.slice(BASE.length).replace(/^\/?/, '/') + location.search;

export const route = signal<string>(current());

export function navigate(to: string): void {
  if (to === route.value) return;
  history.pushState(null, '', BASE + to);
  route.value = current();
}

addEventListener('popstate', () => {
  route.value = current();
});

/** Internal links: ordinary anchors (middle-click, copy link work) that navigate without a reload. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = anchor.getAttribute('href');
  if (!href || !href.startsWith(`${BASE}/`)) return;
  event.preventDefault();
  navigate(href.slice(BASE.length));
}

export const href = (to: string) => BASE + to;
