// The application menu: About, Reload, zoom, theme, and DevTools only in development.
import { app, dialog, Menu, nativeTheme, shell, type MenuItemConstructorOptions } from 'electron';
import type { CoreHost } from './core-host.ts';

export type ThemeSource = 'system' | 'light' | 'dark';

export interface MenuActions {
  isDev: boolean;
  isMac: boolean;
  appName: string;
  theme: () => ThemeSource;
  setTheme: (theme: ThemeSource) => void;
  about: () => void;
  openDataFolder: () => void;
  /** the core's other-than-usual ports, shown at the top of the File menu */
  portNotice?: () => string | null;
}

export function buildMenuTemplate(actions: MenuActions): MenuItemConstructorOptions[] {
  const { isDev, isMac, appName } = actions;
  const about: MenuItemConstructorOptions = { label: `About ${appName}`, click: actions.about };
  const themeItem = (theme: ThemeSource, label: string): MenuItemConstructorOptions => ({
    label,
    type: 'radio',
    checked: actions.theme() === theme,
    click: () => actions.setTheme(theme),
  });
  const view: MenuItemConstructorOptions[] = [
    { role: 'reload' },
    { role: 'forceReload' },
    ...(isDev ? [{ role: 'toggleDevTools' } as const] : []),
    { type: 'separator' },
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    {
      label: 'Theme',
      submenu: [
        themeItem('system', 'Follow the System'),
        themeItem('light', 'Light'),
        themeItem('dark', 'Dark'),
      ],
    },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  return [
    ...(isMac
      ? [
          {
            label: appName,
            submenu: [
              about,
              { type: 'separator' },
              { role: 'hide' },
              { role: 'hideOthers' },
              { role: 'unhide' },
              { type: 'separator' },
              { role: 'quit' },
            ],
          } satisfies MenuItemConstructorOptions,
        ]
      : []),
    {
      label: 'File',
      submenu: [
        ...portItems(actions.portNotice?.() ?? null),
        { label: 'Open Data Folder', click: actions.openDataFolder },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
    { role: 'help', submenu: isMac ? [] : [about] },
  ];
}

/** A disabled line saying the core's ports moved (its sentence in the tooltip), then a separator. */
function portItems(notice: string | null): MenuItemConstructorOptions[] {
  if (!notice) return [];
  const ports = /other ports than usual: ([^.]*)\./.exec(notice)?.[1] ?? notice;
  return [{ label: `Other ports: ${ports}`, enabled: false, toolTip: notice }, { type: 'separator' }];
}

export function aboutDetail(core: CoreHost): string {
  const urls = core.status.urls;
  return [
    `Version ${app.getVersion()}`,
    `Electron ${process.versions.electron}, Chromium ${process.versions.chrome}, Node.js ${process.versions.node}`,
    '',
    urls ? `UI and REST API: ${urls.http}` : `Platform core: ${core.status.state}`,
    ...(urls ? [`MQTT: ${urls.mqtt}`, `Report API: ${urls.analytics}`, `Data: ${urls.dataDir}`] : []),
  ].join('\n');
}

export function setupMenu(options: { isDev: boolean; core: CoreHost; dataDir: string }): void {
  const actions: MenuActions = {
    isDev: options.isDev,
    isMac: process.platform === 'darwin',
    appName: 'Sandboard',
    theme: () => nativeTheme.themeSource,
    setTheme: (theme) => {
      nativeTheme.themeSource = theme;
      render();
    },
    about: () => {
      void dialog.showMessageBox({
        type: 'info',
        title: 'About Sandboard',
        message: 'Sandboard',
        detail: aboutDetail(options.core),
      });
    },
    openDataFolder: () => {
      void shell.openPath(options.dataDir);
    },
    portNotice: () => options.core.status.portNotice ?? null,
  };
  const render = () => Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate(actions)));
  render();
  let shownNotice: string | null = null;
  options.core.on('status', (status) => {
    if (status.state !== 'ready' || (status.portNotice ?? null) === shownNotice) return;
    shownNotice = status.portNotice ?? null;
    render();
  });
}
