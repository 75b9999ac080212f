import { RecentlySeen } from './recently-seen';

describe('RecentlySeen', () => {
  it('given more keys than it holds, then it forgets the one remembered longest ago', () => {
    const seen = new RecentlySeen<string | null>(2);
    seen.remember('a', 'x');
    seen.remember('b', null);
    seen.remember('c', 'z');
    expect([seen.get('a'), seen.get('b'), seen.get('c')]).toEqual([undefined, null, 'z']);
  });

  it('given a key remembered again, then it counts as the newest and keeps its new value', () => {
    const seen = new RecentlySeen<string>(2);
    seen.remember('a', 'old');
    seen.remember('b', 'b');
    seen.remember('a', 'new');
    seen.remember('c', 'c');
    expect([seen.get('a'), seen.get('b'), seen.get('c')]).toEqual(['new', undefined, 'c']);
  });

  it('given a key forgotten, then it is not remembered and takes no room', () => {
    const seen = new RecentlySeen<string>(2);
    seen.remember('a', 'a');
    seen.remember('b', 'b');
    seen.forget('a');
    seen.remember('c', 'c');
    expect([seen.get('a'), seen.get('b'), seen.get('c')]).toEqual([undefined, 'b', 'c']);
  });
});
