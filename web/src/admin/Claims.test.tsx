// @vitest-environment jsdom
// Who calls whom (docs/admin-api.md): "Я телефоную" on a lead, who has a lead in the list and on
// its page, the "Мої" and "Вільні" filters, an admin's hand-over, and the figures per source and
// per operator. The real app under its /admin router, the server replaced at `fetch`.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Breakdown, LeadView } from './api';
import { AdminRoot } from './App';
import {
  LEAD_OPEN,
  LEAD_OVERDUE,
  NOW,
  OPERATOR_SESSION,
  SESSION,
  apiError,
  expectNoUnexpectedRequests,
  fakeServer,
  json,
  leadDetail,
  leadPage,
  signedInRoutes,
} from './test-server';
import { tapToDial } from './test-inbox';

const COLLEAGUE = 'petro@example.org';
/** 04:32:30 UTC, 06:32 in Kyiv. */
const UNTIL = '2026-11-22T04:32:30.000000Z';

function open(path: string) {
  window.history.replaceState(null, '', path);
  render(<AdminRoot />);
}

beforeEach(() => {
  window.history.replaceState(null, '', '/');
  sessionStorage.clear();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  expectNoUnexpectedRequests();
});

const asOperator = () => ({ ...signedInRoutes(), 'GET /admin/api/session': () => json(OPERATOR_SESSION) });

/** LEAD_OPEN's page, as an operator whose take of it the server grants; its claim panel. */
async function openTakeable() {
  const taken: LeadView = { ...LEAD_OPEN, claimed_by: OPERATOR_SESSION.email, claimed_until: UNTIL };
  const server = fakeServer({
    ...asOperator(),
    'POST /admin/api/leads/42/take': () => json(leadDetail(taken, [])),
  });
  open('/admin/leads/42');
  return { server, panel: await screen.findByRole('region', { name: 'Хто телефонує' }) };
}

describe('a lead nobody has', () => {
  it('is taken by a tap on its call button too, as the number is dialled', async () => {
    const { server, panel } = await openTakeable();
    tapToDial(screen.getByRole('link', { name: 'Подзвонити +380 67 123 45 67' }));
    expect(await within(panel).findByText('Ви телефонуєте (до 22.11.2026, 06:32)')).toBeTruthy();
    expect(server.calls('POST /admin/api/leads/42/take')).toHaveLength(1);
    // Now it is theirs: another tap dials and takes nothing more.
    tapToDial(screen.getByRole('link', { name: 'Подзвонити +380 67 123 45 67' }));
    expect(server.calls('POST /admin/api/leads/42/take')).toHaveLength(1);
  });

  it('is taken with "Я телефоную", and then says so', async () => {
    const { server, panel } = await openTakeable();
    expect(within(panel).getByText('Ніхто не взяв цю заявку.')).toBeTruthy();
    fireEvent.click(within(panel).getByRole('button', { name: 'Я телефоную' }));
    expect(await within(panel).findByText('Ви телефонуєте (до 22.11.2026, 06:32)')).toBeTruthy();
    expect(within(panel).queryByRole('button', { name: 'Я телефоную' })).toBeNull();
    expect(within(panel).getByRole('button', { name: 'Повернути в загальний список' })).toBeTruthy();
    expect(server.calls('POST /admin/api/leads/42/take')).toHaveLength(1);
    // The button pressed is gone: the focus is on the panel's heading, not lost to the page.
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('heading', { name: 'Хто телефонує' })));
  });

  it('taken by a colleague a moment earlier: the refusal is said and the page shows who has it', async () => {
    const theirs: LeadView = { ...LEAD_OPEN, claimed_by: COLLEAGUE, claimed_until: UNTIL };
    let answer = LEAD_OPEN;
    fakeServer({
      ...asOperator(),
      'GET /admin/api/leads/42': () => json(leadDetail(answer, [])),
      'POST /admin/api/leads/42/take': () => {
        answer = theirs;
        return apiError(409, 'Цю заявку вже взяв інший оператор.');
      },
    });
    open('/admin/leads/42');
    const panel = await screen.findByRole('region', { name: 'Хто телефонує' });
    fireEvent.click(within(panel).getByRole('button', { name: 'Я телефоную' }));
    expect((await within(panel).findByRole('alert')).textContent).toBe('Цю заявку вже взяв інший оператор.');
    expect(await within(panel).findByText(`Телефонує ${COLLEAGUE} (до 22.11.2026, 06:32)`)).toBeTruthy();
    expect(within(panel).queryByRole('button', { name: 'Я телефоную' })).toBeNull();
  });
});

describe('the list', () => {
  it('says who has each open lead, and filters by "Мої" and "Вільні"', async () => {
    const server = fakeServer({
      ...asOperator(),
      'GET /admin/api/leads': () =>
        json(
          leadPage([
            { ...LEAD_OPEN, claimed_by: OPERATOR_SESSION.email, claimed_until: null },
            { ...LEAD_OVERDUE, claimed_by: COLLEAGUE, claimed_until: UNTIL },
          ]),
        ),
    });
    // On the desk's cards, and in the search's list.
    open('/admin');
    const due = await screen.findByRole('list', { name: 'Кому дзвонити зараз, по черзі' });
    expect(within(due).getByText('Призначено вам')).toBeTruthy();
    expect(within(due).getByText(`Телефонує ${COLLEAGUE} (до 22.11.2026, 06:32)`)).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: 'Пошук і фільтри' }));
    await screen.findByRole('searchbox');
    expect(await screen.findByText('Призначено вам')).toBeTruthy();
    expect(screen.getByText(`Телефонує ${COLLEAGUE} (до 22.11.2026, 06:32)`)).toBeTruthy();
    const filters = screen.getByRole('group', { name: 'Які заявки показати' });
    fireEvent.click(within(filters).getByRole('button', { name: 'Мої' }));
    await waitFor(() => expect(window.location.search).toBe('?filter=mine'));
    fireEvent.click(within(filters).getByRole('button', { name: 'Вільні' }));
    await waitFor(() => expect(window.location.search).toBe('?filter=free'));
    const asked = () => server.calls('GET /admin/api/leads').map((r) => r.params.get('filter'));
    await waitFor(() => expect(asked().at(-1)).toBe('free'));
    expect(asked()).toContain('mine');
    expect(within(filters).getByRole('button', { name: 'Вільні' }).getAttribute('aria-pressed')).toBe('true');
  });
});

describe('an admin', () => {
  it('hands a lead to an operator', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/operators': () =>
        json({
          operators: [
            { email: SESSION.email, role: 'admin', created_at: NOW },
            { email: COLLEAGUE, role: 'operator', created_at: NOW },
          ],
        }),
      'POST /admin/api/leads/42/assign': ({ body }) =>
        json(leadDetail({ ...LEAD_OPEN, claimed_by: (body as { email: string }).email, claimed_until: null }, [])),
    });
    open('/admin/leads/42');
    const panel = await screen.findByRole('region', { name: 'Хто телефонує' });
    fireEvent.click(within(panel).getByText('Передати іншому оператору'));
    const select = await within(panel).findByRole('combobox', { name: 'Кому' });
    fireEvent.change(select, { target: { value: COLLEAGUE } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Передати' }));
    expect(await within(panel).findByText(`Призначено: ${COLLEAGUE}`)).toBeTruthy();
    expect(server.calls('POST /admin/api/leads/42/assign')[0].body).toEqual({ email: COLLEAGUE });
  });

  it('an operator is offered no hand-over', async () => {
    fakeServer(asOperator());
    open('/admin/leads/42');
    const panel = await screen.findByRole('region', { name: 'Хто телефонує' });
    expect(within(panel).queryByText('Передати іншому оператору')).toBeNull();
  });
});

describe('the figures per source and per operator', () => {
  it('load when opened, with a lead that came directly as "Напряму"', async () => {
    const figures: Breakdown = {
      now: NOW,
      sources: [
        { source: 'facebook', leads: 5, reached: 3 },
        { source: null, leads: 2, reached: 2 },
      ],
      operators: [{ email: OPERATOR_SESSION.email, calls: 7, reached: 4 }],
    };
    const server = fakeServer({ ...asOperator(), 'GET /admin/api/stats/breakdown': () => json(figures) });
    open('/admin');
    fireEvent.click(await screen.findByRole('button', { name: 'Показники' }));
    const summary = await screen.findByText('Джерела й оператори за 30 днів');
    expect(server.calls('GET /admin/api/stats/breakdown')).toHaveLength(0);
    fireEvent.click(summary);
    const sources = await screen.findByRole('table', { name: 'Звідки заявки' });
    const rows = within(sources)
      .getAllByRole('row')
      .map((row) => row.textContent);
    expect(rows).toEqual(['ДжерелоЗаявкиПередзвонили за 48 год', 'facebook53', 'Напряму22']);
    const own = screen.getByRole('table', { name: 'Ваші дзвінки' });
    expect(within(own).getByRole('rowheader', { name: OPERATOR_SESSION.email })).toBeTruthy();
    expect(within(own).getAllByRole('row')[1].textContent).toBe(`${OPERATOR_SESSION.email}74`);
  });
});
