import { Notification, Portal } from '@mantine/core';
import { useEffect, useState } from 'react';

const SHOWN_MS = 5_000;

/**
 * A save confirmed where the eye does not have to look for it: a notification in the corner that says
 * what was saved, gone after a few seconds (or closed). show(message) after each successful save.
 */
export function useSavedNotice(): { notice: React.ReactNode; show: (message: string) => void } {
  const [message, setMessage] = useState<{ text: string; seq: number } | null>(null);
  useEffect(() => {
    if (!message) return;
    const timer = setTimeout(() => setMessage(null), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [message]);
  const notice = message && (
    <Portal>
      <Notification
        color="teal"
        title="Saved"
        role="status"
        onClose={() => setMessage(null)}
        data-testid="saved-notice"
        style={{ position: 'fixed', right: 16, bottom: 16, zIndex: 400, maxWidth: 'calc(100vw - 32px)' }}
      >
        {message.text}
      </Notification>
    </Portal>
  );
  return { notice, show: (text) => setMessage((m) => ({ text, seq: (m?.seq ?? 0) + 1 })) };
}
