import { Alert } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { CoreStatus, SandboardBridge } from '../../../shared/desktop-bridge.ts';

/**
 * In the desktop app: a banner while the platform core listens on other ports than the usual ones
 * (another program, a local ThingsBoard say, held 8080 or 1883), since devices aimed at those reach the
 * other program. Nothing in a plain browser, where the user chose the ports.
 */
export function DesktopPortsBanner() {
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    const desktop = (window as Window & { sandboard?: Partial<SandboardBridge> }).sandboard;
    if (!desktop?.coreStatus || !desktop.onCoreStatus) return;
    const show = (status: CoreStatus) => {
      if (status.state === 'ready') setNotice(status.portNotice ?? null);
    };
    void desktop.coreStatus().then(show, () => undefined);
    return desktop.onCoreStatus(show);
  }, []);
  if (!notice) return null;
  return (
    <Alert color="yellow" variant="light" title="Other ports than usual" mb="md" data-testid="ports-banner">
      {notice}
    </Alert>
  );
}
