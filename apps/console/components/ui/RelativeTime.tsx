'use client';

import { useEffect, useState } from 'react';
import { formatDateTime, formatRelative } from '../../lib/format';

/** A relative time that stays current, with the exact UTC time in its title and datetime. */
export function RelativeTime({ iso }: { iso: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}
