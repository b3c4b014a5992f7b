import React, { useEffect, useState } from 'react';
import { render, Text } from 'ink';
import { execa } from 'execa';

function Claude({ prompt }: { prompt: string }) {
  const [output, setOutput] = useState('claude is thinking…');
  useEffect(() => {
    const sub = execa('claude', ['-p', prompt]); // expect: agent-spawn-without-group
    sub.then((r) => setOutput(r.stdout));
    return () => {
      sub.kill();
    };
  }, [prompt]);
  return <Text color="cyan">{output}</Text>;
}

render(<Claude prompt={process.argv[2] ?? 'hello'} />);
