package a4aa

import "sync"

// eventStream is one session's events: an unbounded queue the reader appends to without
// ever blocking, drained into a channel by a goroutine started on the first Events call.
type eventStream struct {
	mu       sync.Mutex
	queue    []AgentEvent
	finished bool
	wake     chan struct{}
	out      chan AgentEvent
	started  bool
}

func newEventStream() *eventStream {
	return &eventStream{wake: make(chan struct{}, 1), out: make(chan AgentEvent)}
}

func (s *eventStream) push(ev AgentEvent) {
	s.mu.Lock()
	if !s.finished {
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	s.notify()
}

// finish ends the stream once the queued events have been read.
func (s *eventStream) finish() {
	s.mu.Lock()
	s.finished = true
	s.mu.Unlock()
	s.notify()
}

func (s *eventStream) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *eventStream) channel() <-chan AgentEvent {
	s.mu.Lock()
	if !s.started {
		s.started = true
		go s.pump()
	}
	s.mu.Unlock()
	return s.out
}

func (s *eventStream) pump() {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.mu.Unlock()
			s.out <- ev
			continue
		}
		if s.finished {
			s.mu.Unlock()
			close(s.out)
			return
		}
		s.mu.Unlock()
		<-s.wake
	}
}
