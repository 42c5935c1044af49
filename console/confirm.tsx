import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A verb that cannot be undone (revoke a pair, the emergency stop) asks
 * twice, in the page rather than window.confirm: keyboard reachable, styled,
 * and a test can press it. The first press shows the question and moves focus
 * to the confirming button; Cancel (or Escape) puts things back.
 */
export function Confirm({ label, question, confirm, onConfirm, disabled = false }: { label: string; question: string; confirm: string; onConfirm: () => void | Promise<void>; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) button.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" data-write disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={question} data-write onKeyDown={(event) => event.key === 'Escape' && setAsking(false)}>
      <span>{question}</span>{' '}
      <button
        ref={button}
        type="button"
        class="danger"
        disabled={disabled}
        onClick={async () => {
          setAsking(false);
          await onConfirm();
        }}
      >
        {confirm}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
