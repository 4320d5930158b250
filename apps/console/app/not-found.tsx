import Link from 'next/link';

export default function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. Go to the <Link href="/namespaces">namespaces</Link>.
      </p>
    </>
  );
}
