import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate, type MenuActions } from '../../../electron/main/menu.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? items(item.submenu) : [])]);
}

function actions(overrides: Partial<MenuActions> = {}): MenuActions {
  return {
    isDev: false,
    isMac: false,
    appName: 'Sandboard',
    theme: () => 'system',
    setTheme: vi.fn(),
    about: vi.fn(),
    openDataFolder: vi.fn(),
    ...overrides,
  };
}

describe('application menu', () => {
  it('offers DevTools only in development', () => {
    const roles = (isDev: boolean) => items(buildMenuTemplate(actions({ isDev }))).map((i) => i.role);
    expect(roles(true)).toContain('toggleDevTools');
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(false)).toContain('reload');
  });

  it('has About, the theme switch and the data folder', () => {
    const a = actions({ theme: () => 'dark' });
    const all = items(buildMenuTemplate(a));
    const byLabel = (label: string) => all.find((i) => i.label === label);
    (byLabel('About Sandboard')?.click as () => void)();
    expect(a.about).toHaveBeenCalled();
    expect(byLabel('Dark')?.checked).toBe(true);
    (byLabel('Light')?.click as () => void)();
    expect(a.setTheme).toHaveBeenCalledWith('light');
    (byLabel('Open Data Folder')?.click as () => void)();
    expect(a.openDataFolder).toHaveBeenCalled();
  });

  it('says at the top of the File menu when the core took other ports than usual', () => {
    const notice =
      'Sandboard runs on other ports than usual: MQTT on 41883 (1883 is held by another program). Devices ...';
    const file = buildMenuTemplate(actions({ portNotice: () => notice })).find((i) => i.label === 'File');
    const [first] = file!.submenu as MenuItemConstructorOptions[];
    expect(first).toMatchObject({
      label: 'Other ports: MQTT on 41883 (1883 is held by another program)',
      enabled: false,
    });
    const plain = buildMenuTemplate(actions({ portNotice: () => null })).find((i) => i.label === 'File');
    expect((plain!.submenu as MenuItemConstructorOptions[])[0]?.label).toBe('Open Data Folder');
  });

  it('puts About in the app menu on macOS', () => {
    const [first] = buildMenuTemplate(actions({ isMac: true }));
    expect(first?.label).toBe('Sandboard');
    expect(items([first!]).map((i) => i.label)).toContain('About Sandboard');
  });
});
