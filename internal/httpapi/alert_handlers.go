package httpapi

// alertRoutes mounts the workspace's alert channels (DECISIONS.md, Alert
// channels).
func (s *Server) alertRoutes() {}
