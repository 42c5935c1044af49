import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A view whose code is a chunk of its own, fetched on first render (esbuild
 * splitting; same origin, so the CSP's script-src 'self' allows it). Ten
 * lines instead of preact/compat's lazy and Suspense.
 */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function Lazy(props: P) {
    const [, setReady] = useState(false);
    useEffect(() => {
      if (!loaded) void load().then((component) => ((loaded = component), setReady(true)));
    }, []);
    const View = loaded;
    return View ? <View {...props} /> : <p class="booting">Loading…</p>;
  };
}
