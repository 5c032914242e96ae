import { Button, Group, Paper, Text, Title, useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { navigate, usePath } from '../router.tsx';
import { closeTour, goToStep, stepPath, useTourState } from './tour-store.ts';

const CARD_WIDTH = 340;
const GAP = 12;
/** how long a step waits for its element to appear (a page loading its data) before it shows centred */
const FIND_TIMEOUT_MS = 8000;

interface Box {
  top: number;
  left: number;
  width: number;
  height: number;
}

/** The element a step points at, once it is on the page; null while it is not (or never is). */
function useTarget(selector: string | undefined, key: string): { box: Box | null; searching: boolean } {
  const [box, setBox] = useState<Box | null>(null);
  const [searching, setSearching] = useState(true);
  useEffect(() => {
    setBox(null);
    setSearching(!!selector);
    if (!selector) return;
    let el: Element | null = null;
    let frame = 0;
    const started = performance.now();
    const measure = () => {
      if (!el || !el.isConnected) return;
      const r = el.getBoundingClientRect();
      setBox({ top: r.top, left: r.left, width: r.width, height: r.height });
    };
    const find = () => {
      try {
        el = document.querySelector(selector);
      } catch {
        el = null;
      }
      if (el) {
        el.scrollIntoView({ block: 'center', inline: 'nearest' });
        measure();
        setSearching(false);
        return;
      }
      if (performance.now() - started > FIND_TIMEOUT_MS) {
        setSearching(false);
        return;
      }
      frame = requestAnimationFrame(find);
    };
    find();
    const onMove = () => measure();
    window.addEventListener('scroll', onMove, true);
    window.addEventListener('resize', onMove);
    const timer = window.setInterval(measure, 500);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', onMove, true);
      window.removeEventListener('resize', onMove);
      window.clearInterval(timer);
    };
  }, [selector, key]);
  return { box, searching };
}

/** Where the card goes: below the element, else above it, else beside; centred with no element. */
function cardPosition(box: Box | null, cardHeight: number): { top: number; left: number } {
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  if (!box) return { top: Math.max(GAP, (vh - cardHeight) / 2), left: Math.max(GAP, (vw - CARD_WIDTH) / 2) };
  const left = Math.min(Math.max(GAP, box.left), vw - CARD_WIDTH - GAP);
  if (box.top + box.height + GAP + cardHeight < vh) return { top: box.top + box.height + GAP, left };
  if (box.top - GAP - cardHeight > 0) return { top: box.top - GAP - cardHeight, left };
  return { top: Math.max(GAP, vh - cardHeight - GAP), left: Math.max(GAP, vw - CARD_WIDTH - GAP) };
}

/**
 * The guided tour on top of the app: the current step's text in a card beside the element it points at,
 * which is outlined. Next / Back / Skip, the arrow keys and Esc move it;
 * each move is saved, so a skipped tour resumes where it was.
 */
export function GuidedTour() {
  const { active } = useTourState();
  const path = usePath();
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const nextRef = useRef<HTMLButtonElement>(null);
  const cardRef = useRef<HTMLDivElement>(null);
  const [cardHeight, setCardHeight] = useState(200);
  const step = active?.steps[active.index];
  const target = step && active ? stepPath(active, step) : null;
  const onPage = target !== null && path === target.split('?')[0];
  const { box, searching } = useTarget(onPage ? step?.target : undefined, `${active?.sandboxId}:${step?.id}`);

  // each step opens its page, once per step (the user may look elsewhere meanwhile): keyed by the step only
  const index = active?.index;
  useEffect(() => {
    if (target && window.location.pathname + window.location.search !== target) navigate(target);
  }, [active?.sandboxId, index]);

  useEffect(() => {
    if (!active) return;
    nextRef.current?.focus({ preventScroll: true });
  }, [active, index]);

  useLayoutEffect(() => {
    if (cardRef.current) setCardHeight(cardRef.current.offsetHeight);
  });

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      if (e.key === 'Escape') closeTour(false);
      else if (e.key === 'ArrowRight') {
        if (active.index === active.steps.length - 1) closeTour(true);
        else goToStep(active.index + 1);
      } else if (e.key === 'ArrowLeft') goToStep(active.index - 1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);

  if (!active || !step) return null;
  const last = active.index === active.steps.length - 1;
  const pos = cardPosition(onPage ? box : null, cardHeight);
  const accent = theme.colors.blue[dark ? 4 : 6];
  return (
    <>
      {box && onPage && (
        <div
          data-testid="tour-highlight"
          aria-hidden
          style={{
            position: 'fixed',
            top: box.top - 4,
            left: box.left - 4,
            width: box.width + 8,
            height: box.height + 8,
            border: `2px solid ${accent}`,
            borderRadius: 6,
            outline: `4px solid ${dark ? 'rgba(77,171,247,0.35)' : 'rgba(34,139,230,0.25)'}`,
            pointerEvents: 'none',
            zIndex: 390,
          }}
        />
      )}
      <Paper
        ref={cardRef}
        role="dialog"
        aria-modal={false}
        aria-labelledby="tour-title"
        shadow="xl"
        radius="md"
        p="md"
        withBorder
        data-testid="tour-card"
        data-step={step.id}
        data-index={active.index}
        data-target-found={box ? 'true' : searching ? 'searching' : 'false'}
        style={{ position: 'fixed', top: pos.top, left: pos.left, width: CARD_WIDTH, zIndex: 400 }}
      >
        <Group justify="space-between" gap="xs" mb={4} wrap="nowrap">
          <Text size="xs" c="dimmed" data-testid="tour-counter">
            {active.title} · {active.index + 1} / {active.steps.length}
          </Text>
        </Group>
        <Title order={4} id="tour-title" mb="xs">
          {step.title}
        </Title>
        <Text size="sm" data-testid="tour-text">
          {step.text}
        </Text>
        <Group justify="space-between" mt="md" wrap="nowrap">
          <Button variant="subtle" size="xs" onClick={() => closeTour(false)} data-testid="tour-skip">
            Skip tour
          </Button>
          <Group gap="xs" wrap="nowrap">
            <Button
              variant="default"
              size="xs"
              disabled={active.index === 0}
              onClick={() => goToStep(active.index - 1)}
              data-testid="tour-back"
            >
              Back
            </Button>
            <Button
              ref={nextRef}
              size="xs"
              onClick={() => (last ? closeTour(true) : goToStep(active.index + 1))}
              data-testid="tour-next"
            >
              {last ? 'Done' : 'Next'}
            </Button>
          </Group>
        </Group>
        <Text size="xs" c="dimmed" mt="xs">
          ← → to move, Esc to leave (the tour resumes where you left it)
        </Text>
      </Paper>
    </>
  );
}
