package httpapi

// extractRoutes mounts the extraction approval loop (spec 3.3, 4.3).
func (s *Server) extractRoutes() {}
