import { Anchor, Box, Button, Group, Paper, Skeleton, Stack } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from '../router.tsx';
import { ErrorAlert } from './error-alert.tsx';
import { PageHeader } from './page-header.tsx';

/** One part of an entity's page, reachable from the section bar. */
export interface EntitySection {
  /** the element id and the bar's anchor: `section-${id}` */
  id: string;
  label: string;
  content: ReactNode;
}

/**
 * The detail page every entity kind shares (devices, assets, and the ones to come): a way back to its
 * list, loading and error states, the header with Edit and Delete, and its sections under a sticky bar
 * (as ThingsBoard's entity details tabs) so that every part is one click away however long the page.
 */
export function EntityDetail({
  back,
  state,
  title,
  description,
  onEdit,
  onDelete,
  sections,
  testId,
  children,
  ...rest
}: {
  back: { to: string; label: string };
  state: { error: unknown; loading: boolean; errorTitle: string };
  title?: ReactNode;
  description?: ReactNode;
  onEdit?: () => void;
  onDelete?: () => void;
  sections?: EntitySection[];
  testId: string;
  /** dialogs and whatever else the page keeps beside its sections */
  children?: ReactNode;
  [data: `data-${string}`]: string | boolean | undefined;
}) {
  const backLink = (
    <Anchor component={Link} to={back.to} size="sm">
      ← {back.label}
    </Anchor>
  );
  if (state.error) {
    return (
      <Stack gap="md">
        {backLink}
        <ErrorAlert error={state.error} title={state.errorTitle} />
      </Stack>
    );
  }
  if (state.loading) {
    return (
      <Stack gap="md">
        {backLink}
        <Skeleton h={40} w="40%" />
        <Skeleton h={200} />
      </Stack>
    );
  }
  return (
    <Stack gap="md" data-testid={testId} {...rest}>
      {backLink}
      <PageHeader
        title={title}
        description={description}
        actions={
          (onEdit || onDelete) && (
            <>
              {onEdit && (
                <Button variant="default" onClick={onEdit}>
                  Edit
                </Button>
              )}
              {onDelete && (
                <Button variant="light" color="red" onClick={onDelete}>
                  Delete
                </Button>
              )}
            </>
          )
        }
      />
      {sections && sections.length > 0 && <SectionBar sections={sections} />}
      {sections?.map((s) => (
        <Box
          key={s.id}
          id={`section-${s.id}`}
          data-section={s.id}
          style={{ scrollMarginTop: 'calc(var(--app-shell-header-offset, 56px) + 64px)' }}
        >
          {s.content}
        </Box>
      ))}
      {children}
    </Stack>
  );
}

/** The sticky bar of section links; the one in view is highlighted. */
function SectionBar({ sections }: { sections: EntitySection[] }) {
  const [current, setCurrent] = useState(sections[0]!.id);
  // a clicked section stays the current one while the page scrolls to it (and when the page cannot
  // scroll far enough to bring it to the top), until the user scrolls on
  const pinned = useRef(false);
  const ids = sections.map((s) => s.id).join(',');
  useEffect(() => {
    const unpin = () => {
      pinned.current = false;
    };
    const options = { passive: true } as const;
    window.addEventListener('wheel', unpin, options);
    window.addEventListener('touchmove', unpin, options);
    window.addEventListener('keydown', unpin);
    return () => {
      window.removeEventListener('wheel', unpin);
      window.removeEventListener('touchmove', unpin);
      window.removeEventListener('keydown', unpin);
    };
  }, []);
  useEffect(() => {
    const visible = new Map<string, number>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          const id = (e.target as HTMLElement).dataset.section!;
          if (e.isIntersecting) visible.set(id, e.boundingClientRect.top);
          else visible.delete(id);
        }
        const top = [...visible].sort((a, b) => a[1] - b[1])[0];
        if (top && !pinned.current) setCurrent(top[0]);
      },
      { rootMargin: '-120px 0px -40% 0px' },
    );
    for (const id of ids.split(',')) {
      const el = document.getElementById(`section-${id}`);
      if (el) observer.observe(el);
    }
    return () => observer.disconnect();
  }, [ids]);
  return (
    <Paper
      withBorder
      radius="md"
      p={6}
      component="nav"
      aria-label="Sections"
      data-testid="section-bar"
      style={{
        position: 'sticky',
        top: 'calc(var(--app-shell-header-offset, 56px) + 8px)',
        zIndex: 5,
      }}
    >
      <Group gap={4} wrap="wrap">
        {sections.map((s) => (
          <Button
            key={s.id}
            component="a"
            href={`#section-${s.id}`}
            size="compact-sm"
            variant={current === s.id ? 'light' : 'subtle'}
            aria-current={current === s.id ? 'location' : undefined}
            data-testid={`section-link-${s.id}`}
            onClick={(e: React.MouseEvent) => {
              e.preventDefault();
              pinned.current = true;
              setCurrent(s.id);
              document.getElementById(`section-${s.id}`)?.scrollIntoView({ block: 'start' });
            }}
          >
            {s.label}
          </Button>
        ))}
      </Group>
    </Paper>
  );
}
