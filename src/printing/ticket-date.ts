/**
 * "dd/mm/yyyy HH:MM" in the branch's time zone. The agent runs on the branch server, so the
 * process's zone is the branch's; tests pass a zone to stay deterministic.
 */
export function formatTicketDate(date: Date, timeZone?: string): string {
  const parts = formatterFor(timeZone).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} ${part('hour')}:${part('minute')}`;
}

/** Building a formatter costs more than formatting with it: one per zone, kept. */
const formatters = new Map<string | undefined, Intl.DateTimeFormat>();

function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
